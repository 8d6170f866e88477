// API.md section 14: the current SEP-2127 draft's card at <mcp url>/server-card and the domain's
// AI Catalog, served beside the seed's card from the same cache entry, with the same rules.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { useSignedIn } from '../../support/accounts.js';
import type { Reply } from '../../support/http.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import {
  CARD_PATH,
  CATALOG_PATH,
  INTERNAL_TOKEN,
  V1_CARD_PATH,
  card,
  createTunnel,
  customDomain,
  discoverableTunnel,
  patchTunnel,
  pinTools,
} from '../../support/tunnels.js';

const SERVICE = 'Acme Tunnels';
const ZONE = 'tunnels.example.test';
const SEP = join(import.meta.dirname, '../../fixtures/sep-2127');

const s = useServer({ env: { ZONE, SERVICE_NAME: SERVICE, INTERNAL_API_TOKEN: INTERNAL_TOKEN } });
const owner = useSignedIn(s, { email: uniqueEmail('v1card') });

// The schema's root only holds $defs; a card is a ServerCard.
const schema = JSON.parse(readFileSync(join(SEP, 'schema.json'), 'utf8')) as Record<string, unknown>;
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
ajv.addSchema(schema, 'sep-2127');
const validCard = ajv.getSchema('sep-2127#/$defs/ServerCard')!;

function assertValidCard(json: unknown, what: string): void {
  assert.ok(validCard(json), `${what}: ${JSON.stringify(validCard.errors)}`);
}

const stable = (r: Reply): Record<string, unknown> => {
  const { date: _d, connection: _c, 'keep-alive': _k, ...rest } = r.headers;
  return rest;
};

test('the SEP-2127 examples: every valid one passes the schema, every invalid one fails', () => {
  for (const kind of ['valid', 'invalid'] as const) {
    const dir = join(SEP, 'examples', kind);
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    assert.ok(files.length > 0, kind);
    for (const f of files) {
      const ok = validCard(JSON.parse(readFileSync(join(dir, f), 'utf8')));
      assert.equal(ok, kind === 'valid', `${kind}/${f}: ${JSON.stringify(validCard.errors)}`);
    }
  }
});

test('/mcp/server-card: the v1 card, valid against the schema, with its media type and the card headers', async () => {
  const t = await discoverableTunnel(s, owner);
  assert.equal((await pinTools(s, t.id, { tools: [{ name: 'search' }, { name: 'fetch' }] })).status, 204);
  const label = `${t.subdomain}--${owner.slug}`;
  const r = await card(s, t.host, { path: V1_CARD_PATH });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers['content-type'], 'application/mcp-server-card+json');
  const json = JSON.parse(r.text) as Record<string, unknown>;
  assert.deepEqual(json, {
    $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
    name: `io.service/${label}`,
    version: '1',
    title: label,
    description: `An MCP server exposed via ${SERVICE}.`,
    remotes: [{ type: 'streamable-http', url: `https://${t.host}/mcp` }],
    _meta: { 'io.service/served-by': SERVICE, 'io.service/card-version': 1, 'io.service/tools': ['search', 'fetch'] },
  });
  assert.equal('tools' in json, false, 'no tool list in a v1 card');
  assertValidCard(json, 'v1 card');
  assert.equal(r.headers['cache-control'], 'public, max-age=600');
  assert.equal(r.headers['access-control-allow-origin'], '*');
  assert.equal(r.headers['access-control-expose-headers'], 'ETag');
  assert.equal(r.headers['x-content-type-options'], 'nosniff');
  assert.match(String(r.headers.etag), /^"[^"]+"$/);
  assert.equal(Number(r.headers['content-length']), Buffer.byteLength(r.text));
  // The seed's card is unchanged beside it.
  const seed = await card(s, t.host);
  assert.equal(seed.headers['content-type'], 'application/json');
  assert.deepEqual(seed.json.tools, [{ name: 'search' }, { name: 'fetch' }]);
  assert.notEqual(seed.headers.etag, r.headers.etag);
});

test('/.well-known/ai-catalog.json lists the v1 card under a urn:air identifier', async () => {
  const t = await discoverableTunnel(s, owner);
  const label = `${t.subdomain}--${owner.slug}`;
  const r = await card(s, t.host, { path: CATALOG_PATH });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers['content-type'], 'application/ai-catalog+json');
  const catalog = JSON.parse(r.text) as { entries: { url: string }[] };
  assert.deepEqual(catalog, {
    specVersion: '1.0',
    entries: [{ identifier: `urn:air:${ZONE}:mcp:${label}`, type: 'application/mcp-server-card+json', url: `https://${t.host}/mcp/server-card` }],
  });
  assert.equal(r.headers['cache-control'], 'public, max-age=600');
  assert.equal(r.headers['access-control-allow-origin'], '*');
  // The catalog's url is the path this server answers with the card.
  const target = new URL(catalog.entries[0]!.url);
  const followed = await card(s, target.host, { path: target.pathname });
  assert.equal(followed.status, 200);
  assertValidCard(JSON.parse(followed.text), 'card found through the catalog');
});

test('on a custom domain: both documents name the domain and point at it', async () => {
  const domain = customDomain('v1');
  const t = await discoverableTunnel(s, owner, { custom_domain: domain });
  const label = `${t.subdomain}--${owner.slug}`;
  const v1 = await card(s, `${domain}:8443`, { path: `${V1_CARD_PATH}?x=1` });
  assert.equal(v1.status, 200, v1.text);
  const json = JSON.parse(v1.text) as Record<string, unknown>;
  assert.equal(json.name, `io.service/${domain}`);
  assert.deepEqual(json.remotes, [{ type: 'streamable-http', url: `https://${domain}/mcp` }]);
  assertValidCard(json, 'custom-domain card');
  const catalog = await card(s, domain, { path: CATALOG_PATH });
  assert.equal(catalog.status, 200);
  assert.deepEqual(JSON.parse(catalog.text).entries, [
    { identifier: `urn:air:${ZONE}:mcp:${label}`, type: 'application/mcp-server-card+json', url: `https://${domain}/mcp/server-card` },
  ]);
  // The API host does not answer card paths as a custom domain.
  assert.notEqual((await s.request(CATALOG_PATH)).headers['content-type'], 'application/ai-catalog+json');
});

test('ETag/304, HEAD, OPTIONS and 405 behave as on the seed paths', async () => {
  const t = await discoverableTunnel(s, owner);
  for (const path of [V1_CARD_PATH, CATALOG_PATH]) {
    const first = await card(s, t.host, { path });
    const etag = String(first.headers.etag);
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const r = await card(s, t.host, { path, headers: { 'if-none-match': inm } });
      assert.equal(r.status, 304, `${path} ${inm}`);
      assert.equal(r.text, '');
      assert.equal(r.headers.etag, etag);
    }
    assert.equal((await card(s, t.host, { path, headers: { 'if-none-match': '"stale"' } })).status, 200);
    const head = await card(s, t.host, { path, method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.deepEqual(stable(head), stable(first));
    const preflight = await card(s, t.host, { path, method: 'OPTIONS', headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD');
    const post = await card(s, t.host, { path, method: 'POST', body: {} });
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, 'GET, HEAD, OPTIONS');
  }
});

test('a non-discoverable or unknown tunnel: the same 404 as the seed paths', async () => {
  const hidden = await createTunnel(s, owner, { custom_domain: customDomain('hid') });
  const reference = await card(s, hidden.host, { path: CARD_PATH });
  assertProblem(reference, 404, 'NOT_FOUND');
  for (const [host, path] of [
    [hidden.host, V1_CARD_PATH],
    [hidden.host, CATALOG_PATH],
    [hidden.custom_domain, V1_CARD_PATH],
    [hidden.custom_domain, CATALOG_PATH],
    [`nobody--${owner.slug}.${ZONE}`, V1_CARD_PATH],
    [customDomain('none'), CATALOG_PATH],
    [hidden.host, '/mcp/server-card/extra'],
  ] as const) {
    const r = await card(s, host, { path });
    assert.equal(r.status, 404, `${host}${path}`);
    assert.equal(r.text, reference.text);
    assert.deepEqual(stable(r), stable(reference));
  }
});

test('changes show on the next request in every generation: tools, discoverable off', async () => {
  const t = await discoverableTunnel(s, owner);
  const before = await card(s, t.host, { path: V1_CARD_PATH });
  assert.deepEqual(JSON.parse(before.text)._meta['io.service/tools'], []);
  assert.equal((await pinTools(s, t.id, { tools: [{ name: 'alpha' }] })).status, 204);
  const after = await card(s, t.host, { path: V1_CARD_PATH, headers: { 'if-none-match': String(before.headers.etag) } });
  assert.equal(after.status, 200);
  assert.deepEqual(JSON.parse(after.text)._meta['io.service/tools'], ['alpha']);
  await patchTunnel(s, owner, t.id, { discoverable: false });
  for (const path of [CARD_PATH, V1_CARD_PATH, CATALOG_PATH]) assert.equal((await card(s, t.host, { path })).status, 404, path);
});

test('requests on the new paths are recorded under their own fixed route labels', async () => {
  const t = await discoverableTunnel(s, owner);
  await card(s, t.host, { path: V1_CARD_PATH });
  await card(s, t.host, { path: CATALOG_PATH });
  const metrics = await s.request('/metrics');
  assert.match(metrics.text, /http_request_duration_seconds_count\{method="GET",route="\/mcp\/server-card",status="200"\} \d+/);
  assert.match(metrics.text, /http_request_duration_seconds_count\{method="GET",route="\/\.well-known\/ai-catalog\.json",status="200"\} \d+/);
});
