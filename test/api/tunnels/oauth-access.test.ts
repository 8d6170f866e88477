// OAuth-protected tunnels, first part of API.md section 13: a tunnel's `access` and
// `allowed_emails` on REST and GraphQL, and the RFC 9728 protected resource metadata an `oauth`
// tunnel's host (and custom domain) serves from the card cache, changing on the next request on
// every instance.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useSignedIn } from '../../support/accounts.js';
import { needs } from '../../support/backends.js';
import { gql } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { startTestServer, uniqueEmail, useServer } from '../../support/server.js';
import { hashTag } from '../../../src/infra/cache/keys.js';
import { CARD_PATH, card, createTunnel, customDomain, discoverableTunnel, patchTunnel } from '../../support/tunnels.js';

const ZONE = 'tunnels.example.test';
const BASE_URL = 'http://api.example.test';
const s = useServer({ env: { ZONE, BASE_URL, APP_URL: BASE_URL } });
const owner = useSignedIn(s, { email: uniqueEmail('oauth-tunnel') });
const PRM = '/.well-known/oauth-protected-resource/mcp';
const PRM_ROOT = '/.well-known/oauth-protected-resource';

test('a new tunnel is public with no allowed emails; access and allowed_emails are set on create and PATCH', async () => {
  const plain = await createTunnel(s, owner);
  assert.equal(plain.access, 'public');
  assert.deepEqual(plain.allowed_emails, []);
  const t = await createTunnel(s, owner, { access: 'oauth', allowed_emails: ['  Bob@Example.COM ', '@Partner.example', 'bob@example.com'] });
  assert.equal(t.access, 'oauth');
  assert.deepEqual(t.allowed_emails, ['bob@example.com', '@partner.example'], 'trimmed, lower-cased, once each');
  const listed = (await s.request('/api/tunnels', { bearer: owner.token })).json.tunnels.find((x: { id: string }) => x.id === t.id);
  assert.equal(listed.access, 'oauth');
  const replaced = await patchTunnel(s, owner, t.id, { allowed_emails: ['carol@example.org'] });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual(replaced.json.allowed_emails, ['carol@example.org'], 'a new list replaces the old');
  assert.equal(replaced.json.access, 'oauth', 'untouched fields stay');
  const cleared = await patchTunnel(s, owner, t.id, { allowed_emails: null, access: 'public' });
  assert.equal(cleared.status, 200, cleared.text);
  assert.deepEqual([cleared.json.access, cleared.json.allowed_emails], ['public', []]);
  const viaGraph = await gql(s, 'query ($id: ID!) { tunnel(id: $id) { access allowedEmails } }', { id: t.id }, { bearer: owner.token });
  assert.deepEqual(viaGraph.json.data.tunnel, { access: 'public', allowedEmails: [] });
});

test('access and allowed_emails: 400 for each broken rule, nothing changed', async () => {
  const t = await createTunnel(s, owner);
  for (const body of [
    { access: 'private' },
    { access: null },
    { access: true },
    { allowed_emails: 'bob@example.com' },
    { allowed_emails: ['not an address'] },
    { allowed_emails: ['@'] },
    { allowed_emails: ['@localhost'] },
    { allowed_emails: [42] },
    { allowed_emails: Array.from({ length: 101 }, (_, i) => `p${i}@example.com`) },
  ]) {
    assertProblem(await patchTunnel(s, owner, t.id, body), 400, 'BAD_REQUEST', JSON.stringify(body).slice(0, 60));
  }
  assert.equal((await patchTunnel(s, owner, t.id, { allowed_emails: Array.from({ length: 100 }, (_, i) => `p${i}@example.com`) })).status, 200);
  const r = await s.request('/api/tunnels', { method: 'POST', bearer: owner.token, body: { subdomain: 'badaccess', access: 'everyone' } });
  assertProblem(r, 400, 'BAD_REQUEST');
  const after = await s.request(`/api/tunnels/${t.id}`, { bearer: owner.token });
  assert.equal(after.json.access, 'public');
});

test('an oauth tunnel host serves RFC 9728 metadata at both paths; the card stays as discoverable says', async () => {
  const t = await createTunnel(s, owner, { access: 'oauth' });
  const label = `${t.subdomain}--${owner.slug}`;
  for (const path of [PRM, PRM_ROOT, `${PRM}?x=1`]) {
    const r = await card(s, t.host, { path });
    assert.equal(r.status, 200, `${path}: ${r.text}`);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.equal(r.headers['access-control-allow-origin'], '*');
    assert.deepEqual(JSON.parse(r.text), {
      resource: `https://${t.host}/mcp`,
      authorization_servers: [BASE_URL],
      scopes_supported: ['mcp'],
      bearer_methods_supported: ['header'],
      resource_name: label,
    });
  }
  // Not discoverable: no card, but the metadata is there; discoverable: both.
  assert.equal((await card(s, t.host)).status, 404);
  assert.equal((await patchTunnel(s, owner, t.id, { discoverable: true })).status, 200);
  assert.equal((await card(s, t.host)).status, 200);
  const again = await card(s, t.host, { path: PRM });
  assert.equal(again.status, 200);
  // ETags as for cards.
  const etag = String(again.headers.etag);
  assert.match(etag, /^"[\w-]+"$/);
  assert.equal((await card(s, t.host, { path: PRM, headers: { 'if-none-match': etag } })).status, 304);
  assert.equal((await card(s, t.host, { path: PRM, method: 'POST', body: {} })).status, 405);
});

test('a public or unknown tunnel has no metadata: 404; the API host is not a resource', async () => {
  const t = await discoverableTunnel(s, owner);
  assertProblem(await card(s, t.host, { path: PRM }), 404, 'NOT_FOUND');
  assertProblem(await card(s, `nobody--no-one.${ZONE}`, { path: PRM }), 404, 'NOT_FOUND');
  assert.equal((await card(s, t.host, { path: CARD_PATH })).status, 200, 'the card is unaffected');
  assert.equal((await s.request(PRM)).status, 404);
});

test('on a custom domain the metadata names the domain', async () => {
  const domain = customDomain('prm');
  const t = await createTunnel(s, owner, { access: 'oauth', custom_domain: domain });
  const r = await card(s, `${domain}:8443`, { path: PRM });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(JSON.parse(r.text), {
    resource: `https://${domain}/mcp`,
    authorization_servers: [BASE_URL],
    scopes_supported: ['mcp'],
    bearer_methods_supported: ['header'],
    resource_name: domain,
  });
  assert.equal(JSON.parse((await card(s, t.host, { path: PRM })).text).resource, `https://${t.host}/mcp`);
});

test('switching access shows on the next request: public → 404, oauth → 200, a rename moves it', async () => {
  const t = await createTunnel(s, owner, { access: 'oauth' });
  assert.equal((await card(s, t.host, { path: PRM })).status, 200);
  assert.equal((await patchTunnel(s, owner, t.id, { access: 'public' })).status, 200);
  assert.equal((await card(s, t.host, { path: PRM })).status, 404);
  assert.equal((await patchTunnel(s, owner, t.id, { access: 'oauth' })).status, 200);
  assert.equal((await card(s, t.host, { path: PRM })).status, 200);
  const renamed = await patchTunnel(s, owner, t.id, { subdomain: `${t.subdomain}x` });
  assert.equal((await card(s, t.host, { path: PRM })).status, 404, 'the old host');
  assert.equal(JSON.parse((await card(s, renamed.json.host, { path: PRM })).text).resource, `https://${renamed.json.host}/mcp`);
  assert.equal((await s.request(`/api/tunnels/${t.id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
  assert.equal((await card(s, renamed.json.host, { path: PRM })).status, 404, 'deleted');
});

const shared = needs(['DATABASE_URL', 'REDIS_URL'], 'two instances sharing PostgreSQL and Redis');

test('two instances: a change of access on one shows on the other at its next request', shared, async () => {
  const b = await startTestServer({ smtp: s.smtp, env: { ZONE, BASE_URL, APP_URL: BASE_URL } });
  try {
    const t = await createTunnel(s, owner, { access: 'oauth' });
    assert.equal((await card(b, t.host, { path: PRM })).status, 200, 'cached on B');
    assert.equal((await card(b, t.host, { path: PRM })).status, 200);
    assert.equal((await patchTunnel(s, owner, t.id, { access: 'public' })).status, 200);
    assert.equal((await card(b, t.host, { path: PRM })).status, 404);
    assert.equal((await patchTunnel(b, owner, t.id, { access: 'oauth' })).status, 200);
    assert.equal((await card(s, t.host, { path: PRM })).status, 200);
  } finally {
    await b.close();
  }
});

test('an entry an older instance wrote (no metadata field) is looked up again, not taken as public', shared, async () => {
  const t = await createTunnel(s, owner, { access: 'oauth' });
  assert.equal((await card(s, t.host, { path: PRM })).status, 200);
  const key = `card:h:${hashTag(t.host)}`;
  const raw = await s.deps.cache.get(key);
  assert.ok(raw, 'the entry is in Redis');
  const { p: _p, ...older } = JSON.parse(raw) as Record<string, unknown>;
  await s.deps.cache.set(key, JSON.stringify(older), 60_000);
  const fresh = await startTestServer({ smtp: s.smtp, env: { ZONE, BASE_URL, APP_URL: BASE_URL } });
  try {
    const r = await card(fresh, t.host, { path: PRM });
    assert.equal(r.status, 200, r.text);
    assert.equal(JSON.parse(r.text).resource, `https://${t.host}/mcp`);
    assert.equal(typeof JSON.parse((await s.deps.cache.get(key))!).p, 'string', 'written again with the metadata');
  } finally {
    await fresh.close();
  }
});
