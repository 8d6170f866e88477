import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useSignedIn } from '../../support/accounts.js';
import type { Reply } from '../../support/http.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import {
  CARD_PATH,
  LEGACY_CARD_PATH,
  card,
  createTunnel,
  customDomain,
  discoverableTunnel,
} from '../../support/tunnels.js';

const SCHEMA_URL = 'https://schemas.example.test/server-card/draft.json';
const SERVICE = 'Acme Tunnels';
const ZONE = 'tunnels.example.test';

const s = useServer({ env: { ZONE, SERVICE_NAME: SERVICE, CARD_SCHEMA_URL: SCHEMA_URL } });
const owner = useSignedIn(s, { email: uniqueEmail('card') });

/** Every header but the ones that change per response (date) or per connection. */
function stableHeaders(r: Reply): Record<string, unknown> {
  const { date: _date, connection: _c, 'keep-alive': _k, ...rest } = r.headers;
  return rest;
}

test('a discoverable tunnel serves exactly the SPEC 2.5 card on its default host', async () => {
  const t = await discoverableTunnel(s, owner);
  const label = `${t.subdomain}--${owner.slug}`;
  const r = await card(s, t.host);
  assert.equal(r.status, 200);
  assert.deepEqual(Object.keys(r.json), ['$schema', 'name', 'title', 'description', 'version', 'capabilities', 'tools', 'remotes', '_meta']);
  assert.deepEqual(r.json, {
    $schema: SCHEMA_URL,
    name: `io.service/${label}`,
    title: label,
    description: `An MCP server exposed via ${SERVICE}.`,
    version: '1',
    capabilities: { tools: {} },
    tools: [],
    remotes: [{ type: 'streamable-http', endpoint: `https://${label}.${ZONE}/mcp` }],
    _meta: { 'io.service/served-by': SERVICE, 'io.service/card-version': 1 },
  });
});

test('the card carries the SPEC 4.3 headers, a strong ETag and exposes it to browsers', async () => {
  const t = await discoverableTunnel(s, owner);
  const r = await card(s, t.host);
  assert.match(String(r.headers['content-type']), /^application\/json(;|$)/);
  assert.equal(r.headers['cache-control'], 'public, max-age=600');
  assert.equal(r.headers['access-control-allow-origin'], '*');
  assert.equal(r.headers['x-content-type-options'], 'nosniff');
  assert.match(String(r.headers.etag), /^"[^"]+"$/, 'a strong entity tag (no W/)');
  assert.equal(r.headers['access-control-expose-headers'], 'ETag');
  assert.equal(Number(r.headers['content-length']), Buffer.byteLength(r.text));
});

test('the legacy path answers byte-identically to the primary path', async () => {
  const t = await discoverableTunnel(s, owner);
  const primary = await card(s, t.host);
  const legacy = await card(s, t.host, { path: LEGACY_CARD_PATH });
  assert.equal(legacy.status, 200);
  assert.equal(legacy.text, primary.text);
  assert.deepEqual(stableHeaders(legacy), stableHeaders(primary));
});

test('on its custom domain, both paths serve the card named after the FQDN with that /mcp endpoint', async () => {
  const domain = customDomain();
  const t = await discoverableTunnel(s, owner, { custom_domain: domain });
  const label = `${t.subdomain}--${owner.slug}`;
  for (const path of [CARD_PATH, LEGACY_CARD_PATH]) {
    const r = await card(s, `${domain}:8443`, { path });
    assert.equal(r.status, 200, path);
    assert.equal(r.json.name, `io.service/${domain}`);
    assert.equal(r.json.title, label);
    assert.deepEqual(r.json.remotes, [{ type: 'streamable-http', endpoint: `https://${domain}/mcp` }]);
    assert.equal(r.headers['cache-control'], 'public, max-age=600');
  }
  const onDefault = await card(s, t.host);
  assert.equal(onDefault.json.name, `io.service/${label}`, 'the default host keeps its own name');
  assert.notEqual(onDefault.headers.etag, (await card(s, domain)).headers.etag);
});

test('If-None-Match with the current ETag gives 304 without a body; another ETag gives 200', async () => {
  const t = await discoverableTunnel(s, owner);
  const first = await card(s, t.host);
  const etag = String(first.headers.etag);
  for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
    const r = await card(s, t.host, { headers: { 'if-none-match': inm } });
    assert.equal(r.status, 304, inm);
    assert.equal(r.text, '');
    assert.equal(r.headers.etag, etag);
    assert.equal(r.headers['cache-control'], 'public, max-age=600');
  }
  const stale = await card(s, t.host, { headers: { 'if-none-match': '"stale"' } });
  assert.equal(stale.status, 200);
  assert.equal(stale.text, first.text);
});

test('HEAD answers like GET without a body', async () => {
  const t = await discoverableTunnel(s, owner);
  const get = await card(s, t.host);
  const head = await card(s, t.host, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  assert.deepEqual(stableHeaders(head), stableHeaders(get));
});

test('an OPTIONS preflight answers 204 with the CORS headers of API.md', async () => {
  const t = await discoverableTunnel(s, owner);
  const r = await card(s, t.host, {
    method: 'OPTIONS',
    headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
  });
  assert.equal(r.status, 204);
  assert.equal(r.headers['access-control-allow-origin'], '*');
  assert.equal(r.headers['access-control-allow-methods'], 'GET, HEAD');
  assert.equal(r.headers['access-control-allow-headers'], 'Content-Type, If-None-Match');
});

test('a non-discoverable tunnel answers a 404 byte-identical to an unknown host, another path and an unknown custom domain', async () => {
  const hidden = await createTunnel(s, owner, { custom_domain: customDomain('hidden') });
  const shown = await discoverableTunnel(s, owner);
  const replies = [
    await card(s, hidden.host),
    await card(s, hidden.custom_domain),
    await card(s, `nobody--${owner.slug}.${ZONE}`),
    await card(s, `nothing--nobody-at-all.${ZONE}`),
    await card(s, `no-separator.${ZONE}`),
    await card(s, customDomain('unknown'), { path: LEGACY_CARD_PATH }),
    await card(s, shown.host, { path: '/mcp' }),
    await card(s, shown.host, { path: '/' }),
  ];
  const [reference] = replies;
  assertProblem(reference!, 404, 'NOT_FOUND');
  for (const r of replies) {
    assert.equal(r.status, 404);
    assert.equal(r.text, reference!.text);
    assert.deepEqual(stableHeaders(r), stableHeaders(reference!));
  }
});

test('card paths need no credential, ignore one, and are not rate limited', async () => {
  const t = await discoverableTunnel(s, owner);
  const anon = await card(s, t.host);
  const withBearer = await card(s, t.host, { bearer: 'garbage-token' });
  const withCookie = await card(s, t.host, { cookie: 'session=garbage' });
  assert.equal(withBearer.text, anon.text);
  assert.equal(withCookie.status, 200);
  const statuses = await Promise.all(Array.from({ length: 300 }, () => card(s, t.host).then((r) => r.status)));
  assert.ok(statuses.every((st) => st === 200));
});

test('other methods on a card path answer 405 with Allow', async () => {
  const t = await discoverableTunnel(s, owner);
  const r = await card(s, t.host, { method: 'POST', body: {} });
  assert.equal(r.status, 405);
  assert.equal(r.headers.allow, 'GET, HEAD, OPTIONS');
});

test('host matching ignores case, a trailing dot and the port', async () => {
  const t = await discoverableTunnel(s, owner);
  const r = await card(s, `${t.host.toUpperCase()}.:443`);
  assert.equal(r.status, 200);
  assert.equal(r.json.remotes[0].endpoint, `https://${t.host}/mcp`);
});

test('card requests are recorded in the HTTP duration histogram under one fixed route label', async () => {
  const t = await discoverableTunnel(s, owner);
  await card(s, t.host);
  await card(s, `nope--nobody.${ZONE}`);
  const metrics = await s.request('/metrics');
  assert.match(metrics.text, /http_request_duration_seconds_count\{method="GET",route="\/\.well-known\/mcp\/server-card\.json",status="200"\} \d+/);
  assert.match(metrics.text, /http_request_duration_seconds_count\{method="GET",route="\/\.well-known\/mcp\/server-card\.json",status="404"\} \d+/);
  assert.doesNotMatch(metrics.text, new RegExp(t.host.replace(/\./g, '\\.')), 'no host in any label');
});
