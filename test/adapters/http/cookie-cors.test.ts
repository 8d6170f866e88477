// Cookie authentication and cross-site protection (API.md section 3): cookie-authenticated writes
// from a foreign Origin are refused with 403 on REST and /graphql; bearer requests are not
// subject to it; CORS headers only for an allowed origin.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signedIn } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';

const DASHBOARD = 'https://dash.example.test';
const OTHER_ALLOWED = 'http://localhost:5173';
const EVIL = 'https://evil.example.com';
const s = useServer({ env: { ALLOWED_ORIGINS: `${DASHBOARD}, ${OTHER_ALLOWED}` } });

const slugBody = (slug: string) => ({ slug });

test('a cookie-authenticated REST write with a foreign Origin answers 403 FORBIDDEN and changes nothing', async () => {
  const a = await signedIn(s);
  const cookie = `session=${a.cookie}`;
  const r = await s.request('/api/account/slug', { method: 'PATCH', cookie, headers: { origin: EVIL }, body: slugBody(`evil-${Date.now()}`) });
  assertProblem(r, 403, 'FORBIDDEN');
  assertProblem(await s.request('/auth/logout', { method: 'POST', cookie, headers: { origin: EVIL } }), 403, 'FORBIDDEN');
  assertProblem(await s.request('/auth/logout-all', { method: 'POST', cookie, headers: { origin: EVIL } }), 403, 'FORBIDDEN');
  assertProblem(
    await s.request('/api/account', { method: 'DELETE', cookie, headers: { origin: EVIL }, body: { email: a.email, password: a.password } }),
    403,
    'FORBIDDEN',
  );
  const me = await s.request('/api/account', { cookie });
  assert.equal(me.status, 200, 'still signed in');
  assert.equal(me.json.slug, a.slug);
});

test('a cookie-authenticated /graphql mutation with a foreign Origin is refused with 403', async () => {
  const a = await signedIn(s);
  const r = await gql(s, 'mutation { logoutAll }', {}, { cookie: `session=${a.cookie}`, headers: { origin: EVIL } });
  assert.equal(r.status, 403, r.text);
  assert.equal(r.json.code ?? gqlCode(r), 'FORBIDDEN');
  assert.equal((await s.request('/api/account', { bearer: a.token })).status, 200);
});

test('cookie writes from an allowed Origin or without Origin go through', async () => {
  const a = await signedIn(s);
  const cookie = `session=${a.cookie}`;
  const slug1 = `ok1-${Date.now()}`;
  const r1 = await s.request('/api/account/slug', { method: 'PATCH', cookie, headers: { origin: DASHBOARD }, body: slugBody(slug1) });
  assert.equal(r1.status, 200, r1.text);
  const slug2 = `ok2-${Date.now()}`;
  const r2 = await s.request('/api/account/slug', { method: 'PATCH', cookie, body: slugBody(slug2) });
  assert.equal(r2.status, 200, r2.text);
  const g = await gql(s, 'mutation ($s: String!) { renameSlug(slug: $s) { slug } }', { s: `ok3-${Date.now()}` }, {
    cookie,
    headers: { origin: OTHER_ALLOWED },
  });
  assert.equal(gqlCode(g), null, g.text);
});

test('bearer-authenticated writes are not subject to the Origin check', async () => {
  const a = await signedIn(s);
  const slug = `bearer-${Date.now()}`;
  const r = await s.request('/api/account/slug', { method: 'PATCH', bearer: a.token, headers: { origin: EVIL }, body: slugBody(slug) });
  assert.equal(r.status, 200, r.text);
  const g = await gql(s, 'mutation { logout }', {}, { bearer: a.token, headers: { origin: EVIL } });
  assert.equal(g.json.data?.logout, true, g.text);
});

test('reads with a cookie from a foreign Origin still answer (no CORS headers, so the browser hides them)', async () => {
  const a = await signedIn(s);
  const r = await s.request('/api/account', { cookie: `session=${a.cookie}`, headers: { origin: EVIL } });
  assert.equal(r.status, 200);
  assert.equal(r.headers['access-control-allow-origin'], undefined);
});

test('an allowed Origin gets credentialed CORS, on answers and preflights; others get no CORS headers', async () => {
  const ok = await s.request('/api/account', { headers: { origin: DASHBOARD } });
  assert.equal(ok.headers['access-control-allow-origin'], DASHBOARD);
  assert.equal(ok.headers['access-control-allow-credentials'], 'true');
  assert.match(String(ok.headers.vary), /Origin/i);
  const pre = await s.request('/api/account/slug', {
    method: 'OPTIONS',
    headers: { origin: DASHBOARD, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'content-type' },
  });
  assert.ok(pre.status === 204 || pre.status === 200, String(pre.status));
  assert.equal(pre.headers['access-control-allow-origin'], DASHBOARD);
  assert.match(String(pre.headers['access-control-allow-methods']), /PATCH/);
  assert.match(String(pre.headers['access-control-allow-headers']), /content-type/i);

  for (const path of ['/api/account', '/graphql']) {
    const evil = await s.request(path, { headers: { origin: EVIL } });
    assert.equal(evil.headers['access-control-allow-origin'], undefined, path);
    assert.equal(evil.headers['access-control-allow-credentials'], undefined, path);
  }
  const evilPre = await s.request('/auth/login', {
    method: 'OPTIONS',
    headers: { origin: EVIL, 'access-control-request-method': 'POST' },
  });
  assert.equal(evilPre.headers['access-control-allow-origin'], undefined);
  assert.equal(evilPre.headers['access-control-allow-methods'], undefined);
});
