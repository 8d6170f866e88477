// Organizations (API.md section 18): creation and its rules, the shared slug namespace, reading
// and renaming, members and the last-owner rule, organization tunnels with their hosts and
// cards, transfer, and deletion.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signedIn, useSignedIn, type SignedIn } from '../../support/accounts.js';
import { gql } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer, type Server } from '../../support/server.js';
import { card, CARD_PATH, createTunnel, uniqueSubdomain } from '../../support/tunnels.js';

const ZONE = 'tunnels.example.test';
const s = useServer({ env: { ZONE } });
const owner = useSignedIn(s, { email: uniqueEmail('org-owner'), verified: true });

let n = 0;
const uniqueSlug = (prefix = 'org') => `${prefix}-${Date.now().toString(36)}${++n}`;

async function createOrg(srv: Server, who: SignedIn, slug = uniqueSlug(), name = 'Acme Tools'): Promise<{ id: string; slug: string; name: string; role: string }> {
  const r = await srv.request('/api/orgs', { method: 'POST', bearer: who.token, body: { slug, name } });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

/** Adds `who` to the organization with `role`, by the database (invitations have their own tests). */
async function addMember(srv: Server, orgSlug: string, who: SignedIn, role: string, by: SignedIn): Promise<void> {
  const org = (await srv.request(`/api/orgs/${orgSlug}`, { bearer: by.token })).json;
  await srv.deps.db.orgMember.create({ data: { orgId: org.id, accountId: who.id, role } });
}

test('create: 201 with the creator as owner; listed, read by slug; verified address, name and slug rules', async () => {
  const slug = uniqueSlug();
  const org = await createOrg(s, owner, slug, '  Acme Tools  ');
  assert.deepEqual([org.slug, org.name, org.role], [slug, 'Acme Tools', 'owner']);
  assert.match(org.id, /^[0-9a-f-]{36}$/);
  const listed = await s.request('/api/orgs', { bearer: owner.token });
  assert.equal(listed.status, 200, listed.text);
  assert.ok(listed.json.orgs.some((o: { slug: string; role: string }) => o.slug === slug && o.role === 'owner'));
  const one = await s.request(`/api/orgs/${slug}`, { bearer: owner.token });
  assert.deepEqual(one.json, org);

  const unverified = await signedIn(s);
  assertProblem(await s.request('/api/orgs', { method: 'POST', bearer: unverified.token, body: { slug: uniqueSlug(), name: 'X' } }), 403, 'FORBIDDEN');
  for (const body of [{ slug: 'ab', name: 'X' }, { slug: 'Has Caps', name: 'X' }, { slug: 'api', name: 'X' }, { slug: uniqueSlug(), name: '' }, { slug: uniqueSlug(), name: 'x'.repeat(101) }]) {
    assertProblem(await s.request('/api/orgs', { method: 'POST', bearer: owner.token, body }), 400, 'BAD_REQUEST', JSON.stringify(body));
  }
  assertProblem(await s.request('/api/orgs', { method: 'POST', body: { slug: uniqueSlug(), name: 'X' } }), 401, 'UNAUTHENTICATED');
});

test("an organization's row is nobody's sign-in: its key as an address finds no account", async () => {
  const org = await createOrg(s, owner);
  const key = `org:${org.id}`;
  assert.equal((await s.request('/auth/forgot-password', { method: 'POST', body: { email: key } })).status < 500, true);
  await s.deps.background.drain();
  assert.equal(await s.deps.db.emailToken.count({ where: { accountId: org.id } }), 0, 'no reset token for the organization');
  const login = await s.request('/auth/login', { method: 'POST', body: { email: key, password: 'correct horse battery' } });
  assert.ok(login.status === 400 || login.status === 401, login.text);
});

test('the slug namespace is shared with accounts, both ways', async () => {
  assertProblem(await s.request('/api/orgs', { method: 'POST', bearer: owner.token, body: { slug: owner.slug, name: 'Mine' } }), 409, 'CONFLICT');
  const org = await createOrg(s, owner);
  const other = await signedIn(s);
  const r = await s.request('/api/account/slug', { method: 'PATCH', bearer: other.token, body: { slug: org.slug } });
  assertProblem(r, 409, 'CONFLICT');
});

test('a non-member gets 404 for everything under /api/orgs/<slug>; a member without the role 403', async () => {
  const org = await createOrg(s, owner);
  const stranger = await signedIn(s, { verified: true });
  for (const [method, path, body] of [
    ['GET', '', undefined],
    ['PATCH', '', { name: 'Mine now' }],
    ['DELETE', '', { slug: org.slug }],
    ['GET', '/members', undefined],
    ['GET', '/tunnels', undefined],
    ['POST', '/tunnels', { subdomain: 'sneaky' }],
    ['GET', '/audit', undefined],
  ] as const) {
    assertProblem(await s.request(`/api/orgs/${org.slug}${path}`, { method, bearer: stranger.token, body }), 404, 'NOT_FOUND', `${method} ${path}`);
  }
  const member = await signedIn(s, { verified: true });
  await addMember(s, org.slug, member, 'member', owner);
  assert.equal((await s.request(`/api/orgs/${org.slug}`, { bearer: member.token })).json.role, 'member');
  assert.equal((await s.request(`/api/orgs/${org.slug}/members`, { bearer: member.token })).status, 200);
  assertProblem(await s.request(`/api/orgs/${org.slug}`, { method: 'PATCH', bearer: member.token, body: { name: 'Renamed' } }), 403, 'FORBIDDEN');
  assertProblem(await s.request(`/api/orgs/${org.slug}/audit`, { bearer: member.token }), 403, 'FORBIDDEN');
  assertProblem(await s.request(`/api/orgs/${org.slug}/members/${owner.id}`, { method: 'DELETE', bearer: member.token }), 403, 'FORBIDDEN');
});

test('members: roles change by rule; the last owner cannot leave, be removed or be demoted (409)', async () => {
  const org = await createOrg(s, owner);
  const admin = await signedIn(s, { verified: true });
  const member = await signedIn(s, { verified: true });
  await addMember(s, org.slug, admin, 'admin', owner);
  await addMember(s, org.slug, member, 'member', owner);
  const listed = (await s.request(`/api/orgs/${org.slug}/members`, { bearer: member.token })).json.members;
  assert.deepEqual(listed.map((m: { email: string; role: string }) => [m.email, m.role]), [[owner.email, 'owner'], [admin.email, 'admin'], [member.email, 'member']]);
  assert.deepEqual(Object.keys(listed[0]).sort(), ['account_id', 'email', 'joined_at', 'role', 'slug']);

  assertProblem(await s.request(`/api/orgs/${org.slug}/members/${owner.id}`, { method: 'DELETE', bearer: owner.token }), 409, 'CONFLICT');
  assertProblem(await s.request(`/api/orgs/${org.slug}/members/${owner.id}`, { method: 'PATCH', bearer: owner.token, body: { role: 'admin' } }), 409, 'CONFLICT');
  // An admin manages members but not owners.
  assertProblem(await s.request(`/api/orgs/${org.slug}/members/${member.id}`, { method: 'PATCH', bearer: admin.token, body: { role: 'owner' } }), 403, 'FORBIDDEN');
  assertProblem(await s.request(`/api/orgs/${org.slug}/members/${owner.id}`, { method: 'DELETE', bearer: admin.token }), 403, 'FORBIDDEN');
  const promoted = await s.request(`/api/orgs/${org.slug}/members/${member.id}`, { method: 'PATCH', bearer: admin.token, body: { role: 'admin' } });
  assert.equal(promoted.status, 200, promoted.text);
  assert.equal(promoted.json.role, 'admin');
  assertProblem(await s.request(`/api/orgs/${org.slug}/members/${member.id}`, { method: 'PATCH', bearer: owner.token, body: { role: 'king' } }), 400, 'BAD_REQUEST');
  // A second owner: now the first may step down.
  assert.equal((await s.request(`/api/orgs/${org.slug}/members/${admin.id}`, { method: 'PATCH', bearer: owner.token, body: { role: 'owner' } })).status, 200);
  assert.equal((await s.request(`/api/orgs/${org.slug}/members/${owner.id}`, { method: 'PATCH', bearer: owner.token, body: { role: 'member' } })).status, 200);
  // Leaving: 204, then 404.
  assert.equal((await s.request(`/api/orgs/${org.slug}/members/${member.id}`, { method: 'DELETE', bearer: member.token })).status, 204);
  assertProblem(await s.request(`/api/orgs/${org.slug}`, { bearer: member.token }), 404, 'NOT_FOUND');
  const activity = (await s.request('/api/account/activity', { bearer: member.token })).json.events;
  assert.deepEqual([activity[0].type, activity[0].detail], ['org_left', { org: org.slug }], 'the member’s own activity says so');
  const audit = (await s.request(`/api/orgs/${org.slug}/audit`, { bearer: admin.token })).json.events.map((e: { type: string }) => e.type);
  assert.deepEqual(audit.slice(0, 4), ['member_left', 'role_changed', 'role_changed', 'role_changed']);
  assert.equal(audit.at(-1), 'org_created');
});

test('organization tunnels: hosts on the org slug, owner shown, members by role on /api/tunnels/<id>, cards served', async () => {
  const org = await createOrg(s, owner);
  const member = await signedIn(s, { verified: true });
  await addMember(s, org.slug, member, 'member', owner);
  const sub = uniqueSubdomain('o');
  const r = await s.request(`/api/orgs/${org.slug}/tunnels`, { method: 'POST', bearer: member.token, body: { subdomain: sub } });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json.host, `${sub}--${org.slug}.${ZONE}`);
  assert.deepEqual(r.json.owner, { type: 'org', slug: org.slug });
  const mine = await createTunnel(s, owner);
  assert.deepEqual(mine.owner, { type: 'account', slug: owner.slug });
  // Personal list stays personal.
  assert.ok(!(await s.request('/api/tunnels', { bearer: member.token })).json.tunnels.some((t: { id: string }) => t.id === r.json.id));
  assert.deepEqual((await s.request(`/api/orgs/${org.slug}/tunnels`, { bearer: owner.token })).json.tunnels.map((t: { id: string }) => t.id), [r.json.id]);
  // Members change and read it; access settings need an admin.
  const patched = await s.request(`/api/tunnels/${r.json.id}`, { method: 'PATCH', bearer: member.token, body: { discoverable: true } });
  assert.equal(patched.status, 200, patched.text);
  assertProblem(await s.request(`/api/tunnels/${r.json.id}`, { method: 'PATCH', bearer: member.token, body: { access: 'oauth' } }), 403, 'FORBIDDEN');
  assert.equal((await s.request(`/api/tunnels/${r.json.id}`, { method: 'PATCH', bearer: owner.token, body: { access: 'oauth', allowed_emails: ['x@example.com'] } })).status, 200);
  const stranger = await signedIn(s);
  assertProblem(await s.request(`/api/tunnels/${r.json.id}`, { bearer: stranger.token }), 404, 'NOT_FOUND');
  // Its card answers on the organization's host.
  assert.equal((await card(s, `${sub}--${org.slug}.${ZONE}`)).status, 200);
  const viaGraph = await gql(s, 'query ($slug: String!) { organization(slug: $slug) { tunnels { edges { node { id owner { type slug } } } } } }', { slug: org.slug }, { bearer: member.token });
  assert.deepEqual(viaGraph.json.data.organization.tunnels.edges[0].node, { id: r.json.id, owner: { type: 'org', slug: org.slug } });
  assert.equal((await s.request(`/api/tunnels/${r.json.id}`, { method: 'DELETE', bearer: member.token })).status, 204);
  const types = (await s.request(`/api/orgs/${org.slug}/audit`, { bearer: owner.token })).json.events.map((e: { type: string }) => e.type);
  assert.deepEqual(types.slice(0, 3), ['tunnel_deleted', 'tunnel_access_changed', 'tunnel_created']);
});

test('transfer: to an organization and back; the old host answers 404 at once; a subdomain taken there is 409', async () => {
  const org = await createOrg(s, owner);
  const t = await createTunnel(s, owner);
  assert.equal((await s.request(`/api/tunnels/${t.id}`, { method: 'PATCH', bearer: owner.token, body: { discoverable: true } })).status, 200);
  const oldHost = `${t.subdomain}--${owner.slug}.${ZONE}`;
  assert.equal((await card(s, oldHost)).status, 200);
  const moved = await s.request(`/api/tunnels/${t.id}/transfer`, { method: 'POST', bearer: owner.token, body: { to: org.slug } });
  assert.equal(moved.status, 200, moved.text);
  assert.equal(moved.json.host, `${t.subdomain}--${org.slug}.${ZONE}`);
  assert.deepEqual(moved.json.owner, { type: 'org', slug: org.slug });
  assert.equal((await card(s, oldHost)).status, 404);
  assert.equal((await card(s, moved.json.host)).status, 200);
  const back = await s.request(`/api/tunnels/${t.id}/transfer`, { method: 'POST', bearer: owner.token, body: { to: 'me' } });
  assert.equal(back.status, 200, back.text);
  assert.equal(back.json.host, oldHost);
  // Same subdomain already in the organization.
  await s.request(`/api/orgs/${org.slug}/tunnels`, { method: 'POST', bearer: owner.token, body: { subdomain: t.subdomain } });
  assertProblem(await s.request(`/api/tunnels/${t.id}/transfer`, { method: 'POST', bearer: owner.token, body: { to: org.slug } }), 409, 'CONFLICT');
  // A member brings in a tunnel whose access is not public only where they may decide access.
  const member = await signedIn(s, { verified: true });
  await addMember(s, org.slug, member, 'member', owner);
  const guarded = await createTunnel(s, member, { access: 'oauth' });
  assertProblem(await s.request(`/api/tunnels/${guarded.id}/transfer`, { method: 'POST', bearer: member.token, body: { to: org.slug } }), 403, 'FORBIDDEN');
  const open = await createTunnel(s, member);
  assert.equal((await s.request(`/api/tunnels/${open.id}/transfer`, { method: 'POST', bearer: member.token, body: { to: org.slug } })).status, 200);
  const stranger = await signedIn(s, { verified: true });
  const theirs = await createOrg(s, stranger);
  assertProblem(await s.request(`/api/tunnels/${t.id}/transfer`, { method: 'POST', bearer: owner.token, body: { to: theirs.slug } }), 404, 'NOT_FOUND');
  void CARD_PATH;
});

test('rename the slug (owner): every tunnel host moves; delete (typed slug): hosts 404 at once, slug held', async () => {
  const org = await createOrg(s, owner);
  const t = await s.request(`/api/orgs/${org.slug}/tunnels`, { method: 'POST', bearer: owner.token, body: { subdomain: uniqueSubdomain('r') } });
  await s.request(`/api/tunnels/${t.json.id}`, { method: 'PATCH', bearer: owner.token, body: { discoverable: true } });
  const newSlug = uniqueSlug('ren');
  const renamed = await s.request(`/api/orgs/${org.slug}`, { method: 'PATCH', bearer: owner.token, body: { slug: newSlug, name: 'New Name' } });
  assert.equal(renamed.status, 200, renamed.text);
  assert.deepEqual([renamed.json.slug, renamed.json.name], [newSlug, 'New Name']);
  assert.equal((await card(s, `${t.json.subdomain}--${org.slug}.${ZONE}`)).status, 404);
  const host = `${t.json.subdomain}--${newSlug}.${ZONE}`;
  assert.equal((await card(s, host)).status, 200);
  assertProblem(await s.request(`/api/orgs/${newSlug}`, { method: 'DELETE', bearer: owner.token, body: { slug: 'wrong' } }), 400, 'BAD_REQUEST');
  const gone = await s.request(`/api/orgs/${newSlug}`, { method: 'DELETE', bearer: owner.token, body: { slug: newSlug } });
  assert.equal(gone.status, 204, gone.text);
  assert.equal((await card(s, host)).status, 404);
  assertProblem(await s.request(`/api/orgs/${newSlug}`, { bearer: owner.token }), 404, 'NOT_FOUND');
  const other = await signedIn(s, { verified: true });
  assertProblem(await s.request('/api/orgs', { method: 'POST', bearer: other.token, body: { slug: newSlug, name: 'Squatter' } }), 409, 'CONFLICT');
});
