// API.md section 13: introspection for the edge (RFC 7662, INTERNAL_API_TOKEN), active until each
// revocation path (the user revokes the grant, the owner revokes it, the tunnel goes public or is
// deleted, the holder is removed from the allowed emails, the account is deleted); the account's
// authorized applications and the owner's per-tunnel view.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromIp, PASSWORD, randomIp, signedIn, type SignedIn } from '../../support/accounts.js';
import { gql } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { patchTunnel } from '../../support/tunnels.js';
import { api as apiAs, form, grantedTokens, toConsent } from '../../support/oauth.js';

const ZONE = 'tunnels.example.test';
const INTERNAL = 'internal-test-token-0123456789abcdef';
const s = useServer(() => ({ env: { ZONE, TRUST_PROXY: 'true', INTERNAL_API_TOKEN: INTERNAL } }));

type Person = SignedIn & { headers: Record<string, string> };
async function person(): Promise<Person> {
  const headers = fromIp(randomIp());
  return { ...(await signedIn(s, { headers, verified: true })), headers };
}
const api = (p: Person, path: string, method = 'GET') => apiAs(p, path, method, s);
const introspect = (token: string, bearer = INTERNAL) => form(s, '/oauth/introspect', { token }, { authorization: `Bearer ${bearer}` });

async function issued(holder: Person, owner: Person = holder) {
  const flow = await toConsent(s, owner);
  if (holder !== owner) assert.equal((await patchTunnel(s, owner, flow.tunnel.id, { allowed_emails: [holder.email] })).status, 200);
  const tokens = await grantedTokens(s, holder, holder === owner ? flow : await toConsent(s, owner, flow.tunnel));
  return { ...flow, tokens, access: tokens.access_token as string };
}

test('introspection: the internal token only; an active token says who, for what, until when', async () => {
  const owner = await person();
  const { access, resource, client } = await issued(owner);
  const r = await introspect(access);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers['cache-control'], 'no-store');
  assert.deepEqual(Object.keys(r.json).sort(), ['active', 'aud', 'client_id', 'email', 'exp', 'scope', 'sub']);
  assert.equal(r.json.active, true);
  assert.equal(r.json.sub, owner.id);
  assert.equal(r.json.aud, resource);
  assert.equal(r.json.client_id, client.client_id);
  assert.equal(r.json.scope, 'mcp');
  assert.equal(r.json.email, owner.email);
  assert.ok(r.json.exp > Date.now() / 1000);
  assert.equal((await introspect(access, 'wrong-token-wrong-token-wrong-token')).status, 401);
  assert.equal((await form(s, '/oauth/introspect', { token: access })).status, 401);
  assert.deepEqual((await introspect('not.a.jwt')).json, { active: false });
  // A token signed by someone else (a tampered payload) is inactive.
  const [h, , sig] = access.split('.');
  const forged = `${h}.${Buffer.from(JSON.stringify({ sub: 'x', aud: resource })).toString('base64url')}.${sig}`;
  assert.deepEqual((await introspect(forged)).json, { active: false });
  const meta = await s.request('/.well-known/oauth-authorization-server');
  assert.equal(meta.json.introspection_endpoint, `${s.deps.config.baseUrl}/oauth/introspect`);
});

test('inactive at once when the user revokes the application; it is listed before and gone after', async () => {
  const owner = await person();
  const { access, tokens, tunnel, resource, client } = await issued(owner);
  const list = await api(owner, '/api/oauth/grants');
  assert.equal(list.status, 200, list.text);
  assert.equal(list.json.grants.length, 1);
  const grant = list.json.grants[0];
  assert.deepEqual(Object.keys(grant).sort(), ['client_id', 'client_name', 'created_at', 'id', 'last_used_at', 'resource', 'scopes', 'tunnel']);
  assert.equal(grant.client_name, 'Desk Assistant');
  assert.equal(grant.resource, resource);
  assert.deepEqual(grant.tunnel, { id: tunnel.id, host: tunnel.host });
  assert.deepEqual(grant.scopes, ['mcp']);
  assert.ok(grant.last_used_at, 'the code exchange counts as a use');
  const stranger = await person();
  assertProblem(await api(stranger, `/api/oauth/grants/${grant.id}`, 'DELETE'), 404, 'NOT_FOUND');
  assert.equal((await api(owner, `/api/oauth/grants/${grant.id}`, 'DELETE')).status, 204);
  assert.deepEqual((await introspect(access)).json, { active: false });
  const refresh = await form(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
  assert.equal(refresh.json.error, 'invalid_grant', 'its refresh token went with it');
  assert.deepEqual((await api(owner, '/api/oauth/grants')).json.grants, []);
  const activity = await api(owner, '/api/account/activity');
  const revoked = activity.json.events.find((e: { type: string }) => e.type === 'oauth_grant_revoked');
  assert.ok(revoked);
  assert.equal(revoked.detail.revoked_by, 'holder');
});

test('the tunnel going public revokes its grants for good; protecting it again brings none back (section 13a)', async () => {
  const owner = await person();
  const { access, tunnel, tokens, client } = await issued(owner);
  assert.equal((await introspect(access)).json.active, true);
  assert.equal((await patchTunnel(s, owner, tunnel.id, { access: 'public' })).status, 200);
  assert.deepEqual((await introspect(access)).json, { active: false });
  assert.equal((await patchTunnel(s, owner, tunnel.id, { access: 'oauth' })).status, 200);
  assert.deepEqual((await introspect(access)).json, { active: false }, 'the grant was revoked');
  const refresh = await form(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
  assert.equal(refresh.json.error, 'invalid_grant');
  assert.deepEqual((await api(owner, '/api/oauth/grants')).json.grants, []);
});

test('deleting a tunnel revokes its grants; a tunnel created again at the same URL does not revive them (section 13a)', async () => {
  const owner = await person();
  const { access, tunnel, tokens, client } = await issued(owner);
  assert.equal((await s.request(`/api/tunnels/${tunnel.id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
  assert.deepEqual((await introspect(access)).json, { active: false });
  const again = await s.request('/api/tunnels', { method: 'POST', bearer: owner.token, headers: owner.headers, body: { subdomain: tunnel.subdomain, access: 'oauth' } });
  assert.equal(again.status, 201, again.text);
  assert.equal(again.json.host, tunnel.host, 'the same URL');
  assert.deepEqual((await introspect(access)).json, { active: false }, 'the old token stays inactive');
  const refresh = await form(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id });
  assert.equal(refresh.json.error, 'invalid_grant', 'its refresh token gives nothing');
  const holders = await gql(s, 'query ($id: ID!) { tunnel(id: $id) { accessGrants { id } } }', { id: again.json.id }, { bearer: owner.token });
  assert.deepEqual(holders.json.data.tunnel.accessGrants, [], 'the new tunnel has no holders');
});

test('a holder removed from the allowed emails is inactive; the owner sees and revokes holders per tunnel', async () => {
  const owner = await person();
  const holder = await person();
  const { access, tunnel } = await issued(holder, owner);
  assert.equal((await introspect(access)).json.email, holder.email);
  const view = await gql(s, 'query ($id: ID!) { tunnel(id: $id) { accessGrants { id email clientName } } }', { id: tunnel.id }, { bearer: owner.token });
  const grants = view.json.data.tunnel.accessGrants as { id: string; email: string; clientName: string }[];
  assert.deepEqual(grants.map((g) => [g.email, g.clientName]), [[holder.email, 'Desk Assistant']]);
  // Removing the address: inactive; adding it back: active again.
  assert.equal((await patchTunnel(s, owner, tunnel.id, { allowed_emails: [] })).status, 200);
  assert.deepEqual((await introspect(access)).json, { active: false });
  assert.equal((await patchTunnel(s, owner, tunnel.id, { allowed_emails: [holder.email] })).status, 200);
  assert.equal((await introspect(access)).json.active, true);
  // The owner revokes it.
  const revoke = await gql(s, 'mutation ($t: ID!, $g: ID!) { revokeTunnelAccess(tunnelId: $t, grantId: $g) }', { t: tunnel.id, g: grants[0]!.id }, { bearer: owner.token });
  assert.equal(revoke.json.data?.revokeTunnelAccess, true, JSON.stringify(revoke.json));
  assert.deepEqual((await introspect(access)).json, { active: false });
  const holderActivity = await api(holder, '/api/account/activity');
  assert.equal(holderActivity.json.events.find((e: { type: string }) => e.type === 'oauth_grant_revoked')?.detail.revoked_by, 'tunnel owner');
  // Someone else's tunnel: not found.
  const other = await gql(s, 'mutation ($t: ID!, $g: ID!) { revokeTunnelAccess(tunnelId: $t, grantId: $g) }', { t: tunnel.id, g: grants[0]!.id }, { bearer: holder.token });
  assert.equal(other.json.errors?.[0]?.extensions?.code, 'NOT_FOUND');
});

test('inactive when the holder deletes the account; its grants go with it', async () => {
  const owner = await person();
  const holder = await person();
  const { access } = await issued(holder, owner);
  const del = await s.request('/api/account', { method: 'DELETE', bearer: holder.token, body: { email: holder.email, password: PASSWORD }, headers: holder.headers });
  assert.equal(del.status, 204, del.text);
  assert.deepEqual((await introspect(access)).json, { active: false });
  assert.equal(await s.deps.db.oAuthModel.count({ where: { accountId: holder.id } }), 0);
});

test('a service token never sees who holds access to a tunnel', async () => {
  const owner = await person();
  const { tunnel } = await issued(owner);
  const made = await s.request('/api/tokens', { method: 'POST', bearer: owner.token, body: { name: 'ci', scopes: ['tunnels:read'] }, headers: owner.headers });
  assert.equal(made.status, 201, made.text);
  const r = await gql(s, 'query ($id: ID!) { tunnel(id: $id) { accessGrants { email } } }', { id: tunnel.id }, { bearer: made.json.token });
  assert.equal(r.json.errors?.[0]?.extensions?.code, 'FORBIDDEN');
});
