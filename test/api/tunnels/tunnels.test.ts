import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signedIn, useSignedIn } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { createTunnel, customDomain, patchTunnel, uniqueSubdomain } from '../../support/tunnels.js';

const s = useServer();
const owner = useSignedIn(s);
const other = useSignedIn(s);
const ZONE = 'tunnels.localhost';

test('POST /api/tunnels creates a tunnel with the API.md shape, not discoverable, no tools pinned', async () => {
  const subdomain = uniqueSubdomain('shape');
  const r = await s.request('/api/tunnels', { method: 'POST', bearer: owner.token, body: { subdomain } });
  assert.equal(r.status, 201);
  assert.deepEqual(Object.keys(r.json).sort(), ['access', 'allowed_emails', 'created_at', 'custom_domain', 'discoverable', 'host', 'id', 'owner', 'pinned_tools', 'subdomain', 'url']);
  assert.deepEqual(r.json.owner, { type: 'account', slug: owner.slug });
  assert.equal(r.json.subdomain, subdomain);
  assert.equal(r.json.host, `${subdomain}--${owner.slug}.${ZONE}`);
  assert.equal(r.json.url, `https://${subdomain}--${owner.slug}.${ZONE}/mcp`);
  assert.equal(r.json.custom_domain, null);
  assert.equal(r.json.discoverable, false);
  assert.deepEqual(r.json.pinned_tools, []);
  assert.ok(!Number.isNaN(Date.parse(r.json.created_at)));
});

test('subdomain rules: 1 to 33 of [a-z0-9-], no edge hyphen, no "--"; reserved labels allowed', async () => {
  for (const bad of ['', 'a'.repeat(34), 'Upper', 'has_underscore', '-lead', 'trail-', 'dou--ble', 'dot.ted']) {
    const r = await s.request('/api/tunnels', { method: 'POST', bearer: owner.token, body: { subdomain: bad } });
    assertProblem(r, 400, 'BAD_REQUEST', `subdomain ${JSON.stringify(bad)}`);
  }
  const missing = await s.request('/api/tunnels', { method: 'POST', bearer: owner.token, body: {} });
  assert.equal(missing.status, 400);
  const fresh = await signedIn(s);
  for (const good of ['a', 'api', 'www', 'a'.repeat(33), 'my-server-2']) {
    const r = await s.request('/api/tunnels', { method: 'POST', bearer: fresh.token, body: { subdomain: good } });
    assert.equal(r.status, 201, `subdomain ${good}: ${r.text}`);
  }
});

test('a subdomain is unique per account (409) but two accounts may share one', async () => {
  const subdomain = uniqueSubdomain('dup');
  await createTunnel(s, owner, { subdomain });
  const again = await s.request('/api/tunnels', { method: 'POST', bearer: owner.token, body: { subdomain } });
  assertProblem(again, 409, 'CONFLICT');
  assert.equal(again.json.detail, 'You already have a tunnel with that subdomain.', 'no custom domain was given: the subdomain is what clashes');
  const renamed = await createTunnel(s, owner);
  const renameTaken = await patchTunnel(s, owner, renamed.id, { subdomain });
  assertProblem(renameTaken, 409, 'CONFLICT');
  assert.equal(renameTaken.json.detail, 'You already have a tunnel with that subdomain.');
  const elsewhere = await s.request('/api/tunnels', { method: 'POST', bearer: other.token, body: { subdomain } });
  assert.equal(elsewhere.status, 201);
});

test('custom domain: a valid host name outside ZONE, lowercased, unique across all accounts', async () => {
  for (const bad of ['localhost', 'not a host', '-x.example.com', `x.${ZONE}`, ZONE, '10.0.0.1', 'a..b.com', 'localhost', 42]) {
    const r = await s.request('/api/tunnels', { method: 'POST', bearer: owner.token, body: { subdomain: uniqueSubdomain(), custom_domain: bad } });
    assert.equal(r.status, 400, `custom domain ${JSON.stringify(bad)}: ${r.text}`);
  }
  const domain = customDomain();
  const t = await createTunnel(s, owner, { custom_domain: `${domain.toUpperCase()}.` });
  assert.equal(t.custom_domain, domain);
  const taken = await s.request('/api/tunnels', { method: 'POST', bearer: other.token, body: { subdomain: uniqueSubdomain(), custom_domain: domain } });
  assertProblem(taken, 409, 'CONFLICT');
  assert.equal(taken.json.detail, 'That custom domain is already in use.');
  const other2 = await createTunnel(s, other);
  const patchTaken = await patchTunnel(s, other, other2.id, { custom_domain: domain });
  assertProblem(patchTaken, 409, 'CONFLICT');
  assert.equal(patchTaken.json.detail, 'That custom domain is already in use.');
});

test('GET /api/tunnels lists only the caller’s tunnels, oldest first', async () => {
  const mine = await signedIn(s);
  const a = await createTunnel(s, mine);
  const b = await createTunnel(s, mine);
  await createTunnel(s, other);
  const r = await s.request('/api/tunnels', { bearer: mine.token });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json.tunnels.map((t: { id: string }) => t.id), [a.id, b.id]);
  const anon = await s.request('/api/tunnels');
  assert.equal(anon.status, 401);
});

test('another account’s tunnel is 404 on GET, PATCH and DELETE, and stays untouched', async () => {
  const t = await createTunnel(s, owner);
  for (const [method, body] of [['GET', undefined], ['PATCH', { discoverable: true }], ['DELETE', undefined]] as const) {
    const r = await s.request(`/api/tunnels/${t.id}`, { method, bearer: other.token, ...(body ? { body } : {}) });
    assertProblem(r, 404, 'NOT_FOUND', method);
  }
  const mine = await s.request(`/api/tunnels/${t.id}`, { bearer: owner.token });
  assert.equal(mine.status, 200);
  assert.equal(mine.json.discoverable, false);
  const unknown = await s.request('/api/tunnels/00000000-0000-0000-0000-000000000000', { bearer: owner.token });
  assert.equal(unknown.status, 404);
  const anon = await s.request(`/api/tunnels/${t.id}`);
  assert.equal(anon.status, 401);
});

test('PATCH sets discoverable, leaves absent fields alone, clears custom_domain with null, rejects a non-boolean', async () => {
  const domain = customDomain();
  const t = await createTunnel(s, owner, { custom_domain: domain });
  const on = await patchTunnel(s, owner, t.id, { discoverable: true });
  assert.equal(on.status, 200);
  assert.equal(on.json.discoverable, true);
  assert.equal(on.json.custom_domain, domain, 'an absent custom_domain is left as it was');
  const bad = await patchTunnel(s, owner, t.id, { discoverable: 'yes' });
  assert.equal(bad.status, 400);
  assert.match(bad.json.detail, /discoverable/);
  const nul = await patchTunnel(s, owner, t.id, { discoverable: null });
  assert.equal(nul.status, 400);
  const cleared = await patchTunnel(s, owner, t.id, { custom_domain: null });
  assert.equal(cleared.status, 200);
  assert.equal(cleared.json.custom_domain, null);
  assert.equal(cleared.json.discoverable, true, 'an absent discoverable is left as it was');
  const off = await patchTunnel(s, owner, t.id, { discoverable: false });
  assert.equal(off.json.discoverable, false);
});

test('DELETE /api/tunnels/<id> answers 204, then the tunnel is gone (404)', async () => {
  const t = await createTunnel(s, owner);
  const del = await s.request(`/api/tunnels/${t.id}`, { method: 'DELETE', bearer: owner.token });
  assert.equal(del.status, 204);
  assert.equal(del.text, '');
  const again = await s.request(`/api/tunnels/${t.id}`, { method: 'DELETE', bearer: owner.token });
  assert.equal(again.status, 404);
  const get = await s.request(`/api/tunnels/${t.id}`, { bearer: owner.token });
  assert.equal(get.status, 404);
});

test('GraphQL: createTunnel, updateTunnel, me.tunnels and deleteTunnel, with the same error codes', async () => {
  const gql = (query: string, variables: Record<string, unknown>, bearer = owner.token) =>
    s.request('/graphql', { method: 'POST', bearer, body: { query, variables } });
  const subdomain = uniqueSubdomain('gql');
  const created = await gql('mutation ($s: String!) { createTunnel(subdomain: $s) { id host url discoverable pinnedTools customDomain } }', { s: subdomain });
  const t = created.json.data.createTunnel;
  assert.equal(t.host, `${subdomain}--${owner.slug}.${ZONE}`);
  assert.equal(t.discoverable, false);
  const updated = await gql('mutation ($id: ID!) { updateTunnel(id: $id, discoverable: true) { discoverable } }', { id: t.id });
  assert.equal(updated.json.data.updateTunnel.discoverable, true);
  const me = await gql('{ me { tunnels { id discoverable } } }', {});
  assert.ok(me.json.data.me.tunnels.some((x: { id: string; discoverable: boolean }) => x.id === t.id && x.discoverable));
  const dup = await gql('mutation ($s: String!) { createTunnel(subdomain: $s) { id } }', { s: subdomain });
  assert.equal(dup.json.errors[0].extensions.code, 'CONFLICT');
  assert.equal(dup.json.errors[0].message, 'You already have a tunnel with that subdomain.');
  const foreign = await gql('mutation ($id: ID!) { deleteTunnel(id: $id) }', { id: t.id }, other.token);
  assert.equal(foreign.json.errors[0].extensions.code, 'NOT_FOUND');
  const anon = await s.request('/graphql', { method: 'POST', body: { query: 'mutation { createTunnel(subdomain: "x") { id } }' } });
  assert.equal(anon.json.errors[0].extensions.code, 'UNAUTHENTICATED');
  const deleted = await gql('mutation ($id: ID!) { deleteTunnel(id: $id) }', { id: t.id });
  assert.equal(deleted.json.data.deleteTunnel, true);
});

test('without INTERNAL_API_TOKEN configured, /internal/* answers 404 whatever the bearer', async () => {
  const t = await createTunnel(s, owner);
  for (const bearer of [undefined, 'anything']) {
    const r = await s.request(`/internal/tunnels/${t.id}/tools`, { method: 'PUT', ...(bearer ? { bearer } : {}), body: { tools: [{ name: 'x' }] } });
    assert.equal(r.status, 404);
  }
});
