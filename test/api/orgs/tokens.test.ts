// Organization tokens (API.md section 18): made, listed and revoked by admins and owners under
// /api/orgs/<slug>/tokens (a verified address and a recent sign-in, the section 12 body,
// tunnels:read and tunnels:write only); an organization token reaches the organization's tunnels
// only, within its scopes, on every tunnel path and in GraphQL; it outlives the member who made
// it, its notice goes to that member, the audit log records it, and revocation stops it at once.
// A member's personal token reaches the organization as its member would, within its scopes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASSWORD, signedIn, useSignedIn, type SignedIn } from '../../support/accounts.js';
import { needs } from '../../support/backends.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { addMember, auditTypes, createOrg, type Org } from '../../support/orgs.js';
import { assertProblem } from '../../support/problem.js';
import { startTestServer, uniqueEmail, useServer, type Server } from '../../support/server.js';
import { createTunnel, uniqueSubdomain } from '../../support/tunnels.js';

const ZONE = 'tunnels.example.test';
const s = useServer({ env: { ZONE } });
const owner = useSignedIn(s, { email: uniqueEmail('orgtok-owner'), verified: true });
const WINDOW_MS = 600_000;

async function orgToken(org: Org, by: SignedIn, scopes: string[], server: Server = s): Promise<{ id: string; token: string }> {
  const r = await server.request(`/api/orgs/${org.slug}/tokens`, { method: 'POST', bearer: by.token, body: { name: 'ci', scopes } });
  assert.equal(r.status, 201, r.text);
  return { id: r.json.id, token: r.json.token };
}

async function personalToken(who: SignedIn, scopes: string[]): Promise<string> {
  const r = await s.request('/api/tokens', { method: 'POST', bearer: who.token, body: { name: 'mine', scopes } });
  assert.equal(r.status, 201, r.text);
  return r.json.token;
}

async function orgTunnel(org: Org, by: string): Promise<{ id: string; subdomain: string }> {
  const r = await s.request(`/api/orgs/${org.slug}/tunnels`, { method: 'POST', bearer: by, body: { subdomain: uniqueSubdomain('ot') } });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

test('create: the answer of POST /api/tokens; the row is the organization’s, made by the member; the notice goes to the member; audited', async () => {
  const org = await createOrg(s, owner);
  const admin = await signedIn(s, { verified: true });
  await addMember(s, org, admin, 'admin');
  const r = await s.request(`/api/orgs/${org.slug}/tokens`, { method: 'POST', bearer: admin.token, body: { name: ' deploy ', scopes: ['tunnels:write', 'tunnels:read'], expires_in_days: 30 } });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(Object.keys(r.json).sort(), ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'scopes', 'token']);
  assert.match(r.json.token, /^tsk_[0-9A-Za-z]{38}$/);
  assert.deepEqual([r.json.name, r.json.scopes], ['deploy', ['tunnels:read', 'tunnels:write']]);
  const row = await s.deps.db.serviceToken.findUniqueOrThrow({ where: { id: r.json.id } });
  assert.deepEqual([row.accountId, row.createdBy], [org.id, admin.id]);
  // The notice: to the member who made it, naming the organization; never to the organization's empty address.
  const mail = await s.smtp.waitFor(admin.email, 'token-created');
  assert.match(mail.subject, new RegExp(org.slug));
  assert.equal(await s.deps.db.outboxEmail.count({ where: { toAddress: '' } }), 0);
  assert.deepEqual(s.smtp.to(owner.email, 'token-created'), []);
  // Listed for admins and owners, with who made it; the personal list does not show it.
  const list = await s.request(`/api/orgs/${org.slug}/tokens`, { bearer: owner.token });
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.json.tokens.map((t: { id: string; created_by: string }) => [t.id, t.created_by]), [[r.json.id, admin.id]]);
  assert.equal('token' in list.json.tokens[0], false);
  assert.deepEqual((await s.request('/api/tokens', { bearer: admin.token })).json.tokens, []);
  const [event] = (await s.request(`/api/orgs/${org.slug}/audit`, { bearer: owner.token })).json.events;
  assert.equal(event.type, 'token_created');
  assert.deepEqual(event.actor, { account_id: admin.id, email: admin.email });
  assert.deepEqual(event.target, { token_id: r.json.id, name: 'deploy', scopes: ['tunnels:read', 'tunnels:write'] });
});

test('create: account:read is refused with a clear 400; members 403, strangers 404; a verified address and a recent sign-in', async () => {
  const org = await createOrg(s, owner);
  const refused = await s.request(`/api/orgs/${org.slug}/tokens`, { method: 'POST', bearer: owner.token, body: { name: 'x', scopes: ['tunnels:read', 'account:read'] } });
  assertProblem(refused, 400, 'BAD_REQUEST');
  assert.match(refused.json.detail, /organization token reaches the organization’s tunnels only: its scopes are tunnels:read and tunnels:write \(account:read/);
  for (const body of [{ name: '', scopes: ['tunnels:read'] }, { name: 'x', scopes: [] }, { name: 'x', scopes: ['tunnels:read'], expires_in_days: 0 }]) {
    assertProblem(await s.request(`/api/orgs/${org.slug}/tokens`, { method: 'POST', bearer: owner.token, body }), 400, 'BAD_REQUEST', JSON.stringify(body));
  }
  const member = await signedIn(s, { verified: true });
  await addMember(s, org, member, 'member');
  const stranger = await signedIn(s, { verified: true });
  const made = await orgToken(org, owner, ['tunnels:read']);
  for (const [method, path, body] of [
    ['POST', '/tokens', { name: 'x', scopes: ['tunnels:read'] }],
    ['GET', '/tokens', undefined],
    ['DELETE', `/tokens/${made.id}`, undefined],
  ] as const) {
    assertProblem(await s.request(`/api/orgs/${org.slug}${path}`, { method, bearer: member.token, body }), 403, 'FORBIDDEN', `member ${method} ${path}`);
    assertProblem(await s.request(`/api/orgs/${org.slug}${path}`, { method, bearer: stranger.token, body }), 404, 'NOT_FOUND', `stranger ${method} ${path}`);
  }
  // An admin whose address is not verified.
  const unverified = await signedIn(s);
  await addMember(s, org, unverified, 'admin');
  assertProblem(await s.request(`/api/orgs/${org.slug}/tokens`, { method: 'POST', bearer: unverified.token, body: { name: 'x', scopes: ['tunnels:read'] } }), 403, 'FORBIDDEN');
  s.clock.advance(WINDOW_MS + 1000);
  try {
    assertProblem(await s.request(`/api/orgs/${org.slug}/tokens`, { method: 'POST', bearer: owner.token, body: { name: 'x', scopes: ['tunnels:read'] } }), 403, 'REAUTH_REQUIRED');
    assert.equal((await s.request('/api/account/reauth', { method: 'POST', bearer: owner.token, body: { password: PASSWORD } })).status, 204);
    await orgToken(org, owner, ['tunnels:read']);
  } finally {
    s.clock.advance(-(WINDOW_MS + 1000));
  }
});

test('an organization token reaches its organization’s tunnels only, within its scopes, on every tunnel path', async () => {
  const org = await createOrg(s, owner);
  const other = await createOrg(s, owner);
  const write = (await orgToken(org, owner, ['tunnels:write'])).token;
  const read = (await orgToken(org, owner, ['tunnels:read'])).token;
  const theirs = await orgTunnel(other, owner.token);
  const personal = await createTunnel(s, owner);

  // Create through the organization's path, and through POST /api/tunnels (its own account's path).
  const viaOrg = await orgTunnel(org, write);
  const viaOwn = await s.request('/api/tunnels', { method: 'POST', bearer: write, body: { subdomain: uniqueSubdomain('own') } });
  assert.equal(viaOwn.status, 201, viaOwn.text);
  assert.deepEqual(viaOwn.json.owner, { type: 'org', slug: org.slug });
  assert.equal(viaOwn.json.host, `${viaOwn.json.subdomain}--${org.slug}.${ZONE}`);
  const ids = [viaOrg.id, viaOwn.json.id].sort();
  // Listed under the organization and as the token's own tunnels (GET /api/tunnels); GraphQL alike.
  for (const token of [read, write]) {
    assert.deepEqual((await s.request(`/api/orgs/${org.slug}/tunnels`, { bearer: token })).json.tunnels.map((t: { id: string }) => t.id).sort(), ids);
    assert.deepEqual((await s.request('/api/tunnels', { bearer: token })).json.tunnels.map((t: { id: string }) => t.id).sort(), ids);
    const g = await gql(s, 'query ($slug: String!) { organization(slug: $slug) { slug role tunnels { edges { node { id } } } } }', { slug: org.slug }, { bearer: token });
    assert.equal(g.json.errors, undefined, g.text);
    assert.equal(g.json.data.organization.role, null);
    assert.deepEqual(g.json.data.organization.tunnels.edges.map((e: { node: { id: string } }) => e.node.id).sort(), ids);
    assert.equal((await s.request(`/api/tunnels/${viaOrg.id}`, { bearer: token })).status, 200);
    // Nothing else: another organization's tunnel, its maker's own, another organization.
    for (const id of [theirs.id, personal.id]) assertProblem(await s.request(`/api/tunnels/${id}`, { bearer: token }), 404, 'NOT_FOUND');
    assertProblem(await s.request(`/api/orgs/${other.slug}/tunnels`, { bearer: token }), 404, 'NOT_FOUND');
  }
  // Write: change and delete; read: neither, nor create.
  assert.equal((await s.request(`/api/tunnels/${viaOrg.id}`, { method: 'PATCH', bearer: write, body: { discoverable: true } })).status, 200);
  assertProblem(await s.request(`/api/tunnels/${viaOrg.id}`, { method: 'PATCH', bearer: read, body: { discoverable: false } }), 403, 'FORBIDDEN');
  assertProblem(await s.request(`/api/orgs/${org.slug}/tunnels`, { method: 'POST', bearer: read, body: { subdomain: uniqueSubdomain('no') } }), 403, 'FORBIDDEN');
  assertProblem(await s.request('/api/tunnels', { method: 'POST', bearer: read, body: { subdomain: uniqueSubdomain('no') } }), 403, 'FORBIDDEN');
  assertProblem(await s.request(`/api/tunnels/${viaOrg.id}`, { method: 'DELETE', bearer: read }), 403, 'FORBIDDEN');
  assert.equal((await s.request(`/api/tunnels/${viaOwn.json.id}`, { method: 'DELETE', bearer: write })).status, 204);
  // Never people, tokens, webhooks, the audit log or an account.
  for (const token of [read, write]) {
    for (const path of ['/members', '/tokens', '/webhooks', '/audit']) assertProblem(await s.request(`/api/orgs/${org.slug}${path}`, { bearer: token }), 403, 'FORBIDDEN', path);
    assertProblem(await s.request('/api/account', { bearer: token }), 403, 'FORBIDDEN');
    assertProblem(await s.request('/api/tokens', { bearer: token }), 403, 'FORBIDDEN');
  }
  // The audit log names the token as the actor of what it did.
  const events = (await s.request(`/api/orgs/${org.slug}/audit`, { bearer: owner.token })).json.events;
  const created = events.filter((e: { type: string }) => e.type === 'tunnel_created');
  assert.equal(created.length, 2);
  for (const e of created) assert.ok('token_id' in e.actor, JSON.stringify(e.actor));
});

test('`me` for an organization token: the organization’s id, slug and tunnels, no organizations, nothing of a person', async () => {
  const org = await createOrg(s, owner);
  const token = (await orgToken(org, owner, ['tunnels:read', 'tunnels:write'])).token;
  const t = await orgTunnel(org, token);
  const me = await gql(s, '{ me { id slug tunnelHostSuffix organizations { slug } tunnels { id } } }', {}, { bearer: token });
  assert.equal(me.json.errors, undefined, me.text);
  assert.deepEqual(me.json.data.me, { id: org.id, slug: org.slug, tunnelHostSuffix: `--${org.slug}.${ZONE}`, organizations: [], tunnels: [{ id: t.id }] });
  for (const field of ['email', 'emailVerified', 'plan', 'serviceTokens { id }', 'webhooks { id }']) {
    const r = await gql(s, `{ me { ${field} } }`, {}, { bearer: token });
    assert.equal(gqlCode(r), 'FORBIDDEN', field);
  }
});

test('it outlives the member who made it; revoking stops it on its next request; both on GraphQL too', async () => {
  const org = await createOrg(s, owner);
  const admin = await signedIn(s, { verified: true });
  await addMember(s, org, admin, 'admin');
  const made = await orgToken(org, admin, ['tunnels:read']);
  assert.equal((await s.request(`/api/orgs/${org.slug}/members/${admin.id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
  assert.equal((await s.request(`/api/orgs/${org.slug}/tunnels`, { bearer: made.token })).status, 200, 'the token outlives its maker’s membership');
  assert.equal((await s.request(`/api/orgs/${org.slug}/tokens`, { bearer: owner.token })).json.tokens[0].created_by, admin.id);

  // GraphQL: create, list, revoke.
  const created = await gql(
    s,
    'mutation ($slug: String!) { createOrganizationToken(slug: $slug, name: "graph", scopes: ["tunnels:write"]) { token serviceToken { id scopes createdBy } } }',
    { slug: org.slug },
    { bearer: owner.token },
  );
  assert.equal(created.json.errors, undefined, created.text);
  const g = created.json.data.createOrganizationToken;
  assert.deepEqual([g.serviceToken.scopes, g.serviceToken.createdBy], [['tunnels:write'], owner.id]);
  const listed = await gql(s, 'query ($slug: String!) { organization(slug: $slug) { tokens { edges { node { id name createdBy } } } } }', { slug: org.slug }, { bearer: owner.token });
  assert.deepEqual(listed.json.data.organization.tokens.edges.map((e: { node: { name: string } }) => e.node.name), ['graph', 'ci']);
  const asToken = await gql(s, 'query ($slug: String!) { organization(slug: $slug) { tokens { edges { node { id } } } } }', { slug: org.slug }, { bearer: g.token });
  assert.equal(gqlCode(asToken), 'FORBIDDEN');
  const revoked = await gql(s, 'mutation ($slug: String!, $id: ID!) { revokeOrganizationToken(slug: $slug, id: $id) }', { slug: org.slug, id: g.serviceToken.id }, { bearer: owner.token });
  assert.equal(revoked.json.data?.revokeOrganizationToken, true, revoked.text);
  assertProblem(await s.request(`/api/orgs/${org.slug}/tunnels`, { bearer: g.token }), 401, 'UNAUTHENTICATED');

  // REST: revoke, then the token is refused; again 404; another organization's token id is 404.
  const other = await createOrg(s, owner);
  const otherToken = await orgToken(other, owner, ['tunnels:read']);
  assertProblem(await s.request(`/api/orgs/${org.slug}/tokens/${otherToken.id}`, { method: 'DELETE', bearer: owner.token }), 404, 'NOT_FOUND');
  assert.equal((await s.request(`/api/orgs/${org.slug}/tokens/${made.id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
  assertProblem(await s.request(`/api/orgs/${org.slug}/tunnels`, { bearer: made.token }), 401, 'UNAUTHENTICATED');
  assertProblem(await s.request(`/api/orgs/${org.slug}/tokens/${made.id}`, { method: 'DELETE', bearer: owner.token }), 404, 'NOT_FOUND');
  assert.equal((await s.request(`/api/orgs/${other.slug}/tunnels`, { bearer: otherToken.token })).status, 200);
  const events = (await s.request(`/api/orgs/${org.slug}/audit`, { bearer: owner.token })).json.events;
  assert.deepEqual(events.slice(0, 4).map((e: { type: string }) => e.type), ['token_revoked', 'token_revoked', 'token_created', 'member_removed']);
  assert.deepEqual(events[0].actor, { account_id: owner.id, email: owner.email });
  assert.deepEqual(events[0].target, { token_id: made.id, name: 'ci' });
});

test('RFC 7009: revoking an organization token by its value records it in the audit log, by the token', async () => {
  const org = await createOrg(s, owner);
  const made = await orgToken(org, owner, ['tunnels:read']);
  const r = await s.request('/oauth/revoke', { method: 'POST', body: new URLSearchParams({ token: made.token }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(r.status, 200, r.text);
  assertProblem(await s.request(`/api/orgs/${org.slug}/tunnels`, { bearer: made.token }), 401, 'UNAUTHENTICATED');
  const [event] = (await s.request(`/api/orgs/${org.slug}/audit`, { bearer: owner.token })).json.events;
  assert.deepEqual([event.type, event.actor], ['token_revoked', { token_id: made.id }]);
  // No security activity was written for the organization.
  assert.equal(await s.deps.db.securityEvent.count({ where: { accountId: org.id } }), 0);
});

test('a member’s personal token reaches the organization as its member would, within its scopes', async () => {
  const org = await createOrg(s, owner);
  const member = await signedIn(s, { verified: true });
  await addMember(s, org, member, 'member');
  const existing = await orgTunnel(org, owner.token);
  const read = await personalToken(member, ['tunnels:read']);
  const write = await personalToken(member, ['tunnels:write']);
  // tunnels:read lists and gets, cannot create or change.
  assert.deepEqual((await s.request(`/api/orgs/${org.slug}/tunnels`, { bearer: read })).json.tunnels.map((t: { id: string }) => t.id), [existing.id]);
  assert.equal((await s.request(`/api/tunnels/${existing.id}`, { bearer: read })).status, 200);
  assertProblem(await s.request(`/api/orgs/${org.slug}/tunnels`, { method: 'POST', bearer: read, body: { subdomain: uniqueSubdomain('no') } }), 403, 'FORBIDDEN');
  assertProblem(await s.request(`/api/tunnels/${existing.id}`, { method: 'PATCH', bearer: read, body: { discoverable: true } }), 403, 'FORBIDDEN');
  // tunnels:write creates and changes.
  const made = await orgTunnel(org, write);
  assert.equal((await s.request(`/api/tunnels/${made.id}`, { method: 'PATCH', bearer: write, body: { discoverable: true } })).status, 200);
  const g = await gql(s, 'mutation ($slug: String!, $sub: String!) { createOrganizationTunnel(slug: $slug, subdomain: $sub) { owner { type slug } } }', { slug: org.slug, sub: uniqueSubdomain('g') }, { bearer: write });
  assert.deepEqual(g.json.data?.createOrganizationTunnel.owner, { type: 'org', slug: org.slug }, g.text);
  // A personal token's POST /api/tunnels stays personal.
  const mine = await s.request('/api/tunnels', { method: 'POST', bearer: write, body: { subdomain: uniqueSubdomain('mine') } });
  assert.deepEqual(mine.json.owner, { type: 'account', slug: member.slug });
  // Neither manages members, tokens or webhooks (the member's role would not either; an owner's token does not).
  const ownerToken = await personalToken(owner, ['tunnels:read', 'tunnels:write', 'account:read']);
  for (const token of [read, write, ownerToken]) {
    assertProblem(await s.request(`/api/orgs/${org.slug}/members/${member.id}`, { method: 'PATCH', bearer: token, body: { role: 'admin' } }), 403, 'FORBIDDEN');
    assertProblem(await s.request(`/api/orgs/${org.slug}/members/${member.id}`, { method: 'DELETE', bearer: token }), 403, 'FORBIDDEN');
    assertProblem(await s.request(`/api/orgs/${org.slug}/tokens`, { method: 'POST', bearer: token, body: { name: 'x', scopes: ['tunnels:read'] } }), 403, 'FORBIDDEN');
  }
  // The member removed: their personal token no longer reaches it.
  assert.equal((await s.request(`/api/orgs/${org.slug}/members/${member.id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
  assertProblem(await s.request(`/api/orgs/${org.slug}/tunnels`, { bearer: read }), 404, 'NOT_FOUND');
  assert.ok((await auditTypes(s, org, owner)).includes('tunnel_created'));
});

const shared = needs(['DATABASE_URL', 'REDIS_URL'], 'two instances sharing PostgreSQL and Redis');

test('a revocation on one instance stops the organization token on the other at its next request', shared, async () => {
  const b = await startTestServer({ smtp: s.smtp, env: { ZONE } });
  try {
    const org = await createOrg(s, owner);
    const made = await orgToken(org, owner, ['tunnels:read']);
    assert.equal((await b.request(`/api/orgs/${org.slug}/tunnels`, { bearer: made.token })).status, 200, 'cached on b');
    assert.equal((await s.request(`/api/orgs/${org.slug}/tokens/${made.id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
    assertProblem(await b.request(`/api/orgs/${org.slug}/tunnels`, { bearer: made.token }), 401, 'UNAUTHENTICATED');
  } finally {
    await b.close();
  }
});
