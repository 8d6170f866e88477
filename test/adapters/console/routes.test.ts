// Where the console is served, and GraphiQL's local assets: the console's shell only where the
// origin of APP_URL is this server; the link pages on the console's stylesheet under a CSP with no
// inline style; GraphiQL from same-origin files under its CSP, and none of it in production.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useServer } from '../../support/server.js';

const gqlProviders = async (s: { request: ReturnType<typeof useServer>['request'] }) => {
  const r = await s.request('/graphql', { method: 'POST', body: { query: '{ providers }' } });
  assert.equal(r.status, 200, r.text);
  return r.json.data.providers as string[];
};

describe('APP_URL is this server (the default)', () => {
  const s = useServer();

  for (const path of ['/', '/sign-in', '/sign-up', '/forgot-password', '/mfa', '/account', '/security', '/tunnels', '/tokens', '/passkeys', '/orgs/new', '/orgs/acme/tunnels', '/orgs/acme/members', '/orgs/acme/tokens', '/orgs/acme/webhooks', '/orgs/acme/audit', '/orgs/acme/settings']) {
    test(`GET ${path} answers the console's shell with its strict CSP`, async () => {
      const r = await s.request(path);
      assert.equal(r.status, 200);
      assert.match(String(r.headers['content-type']), /^text\/html/);
      assert.match(r.text, /<script type="module" src="\/assets\/console\.js"><\/script>/);
      assert.equal(r.headers['content-security-policy'], "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'");
      assert.equal(r.headers['referrer-policy'], 'no-referrer');
    });
  }

  test('an unknown path is still the API 404, not the shell', async () => {
    for (const path of ['/no-such-page', '/orgs/acme/no-such-page', '/orgs/acme']) {
      const r = await s.request(path);
      assert.equal(r.status, 404, path);
      assert.match(String(r.headers['content-type']), /problem\+json/, path);
    }
  });

  test('the bundle and stylesheet are served; Query.providers is empty with no provider configured', async () => {
    const js = await s.request('/assets/console.js');
    assert.equal(js.status, 200);
    assert.match(String(js.headers['content-type']), /^text\/javascript/);
    assert.match(js.text, /\/graphql/);
    // One self-contained file: no remote import (the browser test asserts no request leaves loopback).
    assert.ok(!/\bimport\s*\(?\s*["'](https?:)?\/\//.test(js.text), 'no remote import in the bundle');
    const css = await s.request('/assets/console.css');
    assert.equal(css.status, 200);
    assert.match(String(css.headers['content-type']), /^text\/css/);
    assert.deepEqual(await gqlProviders(s), []);
  });

  test('GraphiQL (Accept: text/html) links same-origin files only, under its CSP, opening with { me { email } }', async () => {
    const r = await s.request('/graphql', { headers: { accept: 'text/html' } });
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/html/);
    const csp = String(r.headers['content-security-policy']);
    assert.match(csp, /script-src 'self';/);
    assert.doesNotMatch(csp, /unsafe-eval|script-src[^;]*unsafe-inline/);
    assert.doesNotMatch(r.text, /(src|href)="(https?:)?\/\//i, 'no CDN');
    assert.doesNotMatch(r.text, /<script>/, 'no inline script');
    const options = JSON.parse(/<script id="graphiql-options" type="application\/json">(.*?)<\/script>/s.exec(r.text)![1]!);
    assert.match(options.defaultQuery, /\{\s*me\s*\{\s*email\s*\}\s*\}/);
    for (const file of ['graphiql.js', 'boot.js', 'worker-editor.js', 'worker-json.js', 'worker-graphql.js']) {
      const a = await s.request(`/assets/graphiql/${file}`);
      assert.equal(a.status, 200, file);
      assert.match(String(a.headers['content-type']), /^text\/javascript/, file);
    }
    const css = await s.request('/assets/graphiql/graphiql.css');
    assert.equal(css.status, 200);
    assert.doesNotMatch(css.text, /@import\s+url\(["']?https?:/, 'no remote stylesheet');
  });
});

describe('APP_URL is another origin (a dashboard of its own)', () => {
  const s = useServer({ env: { APP_URL: 'https://app.example.test', GITHUB_CLIENT_ID: 'id', GITHUB_CLIENT_SECRET: 'secret' } });

  test('/ and the console routes are not served; the link pages and the standalone /mfa and /passkeys pages are', async () => {
    for (const path of ['/', '/sign-in', '/account', '/assets/console.js']) assert.equal((await s.request(path)).status, 404, path);
    for (const path of ['/verify-email', '/reset-password', '/confirm-email-change', '/mfa', '/passkeys']) {
      const r = await s.request(path);
      assert.equal(r.status, 200, path);
      assert.doesNotMatch(r.text, /console\.js/, path);
    }
  });

  test('the link pages use the same-origin stylesheet and a CSP without inline style', async () => {
    const r = await s.request('/reset-password?token=x');
    assert.match(r.text, /<link rel="stylesheet" href="\/assets\/console\.css">/);
    assert.doesNotMatch(r.text, /<style|style="/);
    assert.match(String(r.headers['content-security-policy']), /style-src 'self';/);
    assert.equal((await s.request('/assets/console.css')).status, 200);
  });

  test('Query.providers lists what is configured', async () => {
    assert.deepEqual(await gqlProviders(s), ['github']);
  });
});

describe('production', () => {
  const s = useServer({ env: { NODE_ENV: 'production' } });

  test('no GraphiQL page and no GraphiQL assets', async () => {
    const r = await s.request('/graphql', { headers: { accept: 'text/html' } });
    assert.doesNotMatch(String(r.headers['content-type']), /^text\/html/);
    assert.equal((await s.request('/assets/graphiql/graphiql.js')).status, 404);
  });
});
