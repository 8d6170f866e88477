// Invitations to an organization (API.md section 18), over REST and GraphQL: who may invite whom,
// the org-invitation email and its link (7 days, once), accepting only with the invited address
// verified (case-insensitive), the refusals in words, decline and revoke, the limits (50 pending,
// 20 sent an hour per organization and 40 per inviter, counted even while the cache is
// unreachable), the audit log, the invitee's own activity, and two accepts of one link at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomUUID } from 'node:crypto';
import { signedIn, signup, login, verify, type SignedIn } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { hashToken } from '../../../src/infra/crypto/tokens.js';
import { PROBLEMS, type ProblemType } from '../../../src/domain/problems.js';

const s = useServer();

let n = 0;
const uniqueSlug = () => `inv-${Date.now().toString(36)}${++n}`;

interface Org {
  id: string;
  slug: string;
  name: string;
  created_at: string;
  role: string;
}

async function createOrg(who: SignedIn, name = 'Acme Tools'): Promise<Org> {
  const r = await s.request('/api/orgs', { method: 'POST', bearer: who.token, body: { slug: uniqueSlug(), name } });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

async function addMember(org: Org, who: SignedIn, role: string): Promise<void> {
  await s.deps.db.orgMember.create({ data: { orgId: org.id, accountId: who.id, role } });
}

const invite = (org: Org, by: SignedIn, email: string, role = 'member') =>
  s.request(`/api/orgs/${org.slug}/invitations`, { method: 'POST', bearer: by.token, body: { email, role } });

/** Invites `email` (201) and returns the invitation and its email's token. */
async function invited(org: Org, by: SignedIn, email: string, role = 'member', count = 1): Promise<{ id: string; token: string; link: string }> {
  const r = await invite(org, by, email, role);
  assert.equal(r.status, 201, r.text);
  const mail = await s.smtp.waitFor(email, 'org-invitation', count);
  assert.ok(mail.token, 'the email carries the link');
  const link = mail.links.find((l) => l.includes('token='))!;
  return { id: r.json.id, token: decodeURIComponent(mail.token), link };
}

const accept = (who: { token: string }, token: unknown) => s.request('/api/invitations/accept', { method: 'POST', bearer: who.token, body: { token } });
const decline = (who: { token: string }, token: unknown) => s.request('/api/invitations/decline', { method: 'POST', bearer: who.token, body: { token } });

function assertType(r: { json: { type?: string; extensions?: unknown } }, problem: ProblemType): void {
  assert.ok(String(r.json.type).endsWith(`/problems/${problem.slug}`), `problem ${problem.slug}, got ${r.json.type}`);
}

async function auditTypes(org: Org, by: SignedIn): Promise<{ type: string; target: Record<string, unknown>; actor: { email?: string } | null }[]> {
  const r = await s.request(`/api/orgs/${org.slug}/audit`, { bearer: by.token });
  assert.equal(r.status, 200, r.text);
  return r.json.events;
}

async function pendingOf(org: Org, by: SignedIn): Promise<{ id: string; email: string; role: string; expires_at: string }[]> {
  const r = await s.request(`/api/orgs/${org.slug}/invitations`, { bearer: by.token });
  assert.equal(r.status, 200, r.text);
  return r.json.invitations;
}

test('invite → 201 and an org-invitation email whose link works once: the invitee joins with the role, audit and activity', async () => {
  const owner = await signedIn(s, { verified: true });
  const org = await createOrg(owner, 'Acme Tools');
  const invitee = await signedIn(s, { verified: true });
  const before = s.clock.now().getTime();
  const r = await invite(org, owner, invitee.email, 'admin');
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(Object.keys(r.json).sort(), ['email', 'expires_at', 'id', 'role']);
  assert.deepEqual([r.json.email, r.json.role], [invitee.email, 'admin']);
  const ttl = Date.parse(r.json.expires_at) - before;
  assert.ok(ttl >= 7 * 24 * 3600_000 - 1000 && ttl <= 7 * 24 * 3600_000 + 60_000, `7 days (${ttl} ms)`);

  const mail = await s.smtp.waitFor(invitee.email, 'org-invitation');
  assert.match(mail.subject, /Acme Tools/);
  assert.match(mail.raw, new RegExp(`${owner.email.replace(/[.+]/g, '\\$&')}`), 'names who invited');
  const link = mail.links.find((l) => l.includes('token='))!;
  assert.ok(link.startsWith(`${s.deps.config.appUrl}/invitations/accept?token=`), link);
  const token = decodeURIComponent(mail.token!);
  // Only its hash is stored.
  const row = await s.deps.db.orgInvitation.findUniqueOrThrow({ where: { id: r.json.id } });
  assert.equal(row.tokenHash, hashToken(token));
  assert.ok(!JSON.stringify(row).includes(token));

  assert.deepEqual((await pendingOf(org, owner)).map((i) => i.id), [r.json.id]);

  const joined = await accept(invitee, token);
  assert.equal(joined.status, 200, joined.text);
  const asMember = await s.request(`/api/orgs/${org.slug}`, { bearer: invitee.token });
  assert.deepEqual(joined.json, asMember.json, 'the same JSON as GET /api/orgs/<slug>');
  assert.equal(joined.json.role, 'admin');
  const members = (await s.request(`/api/orgs/${org.slug}/members`, { bearer: owner.token })).json.members;
  assert.deepEqual(members.map((m: { email: string; role: string }) => [m.email, m.role]), [[owner.email, 'owner'], [invitee.email, 'admin']]);

  // Once.
  const again = await accept(invitee, token);
  assertProblem(again, 400, 'BAD_REQUEST');
  assertType(again, PROBLEMS.invalidInvitation);
  assert.deepEqual(await pendingOf(org, owner), [], 'no longer pending');

  const audit = await auditTypes(org, owner);
  assert.deepEqual(audit.slice(0, 2).map((e) => e.type), ['member_joined', 'member_invited']);
  assert.deepEqual(audit[1]!.target, { invitation_id: r.json.id, email: invitee.email, role: 'admin' });
  assert.equal(audit[1]!.actor?.email, owner.email);
  assert.equal(audit[0]!.actor?.email, invitee.email);

  const activity = await s.request('/api/account/activity', { bearer: invitee.token });
  assert.equal(activity.status, 200, activity.text);
  const event = activity.json.events.find((e: { type: string }) => e.type === 'org_joined');
  assert.ok(event, 'the invitee’s own activity records the joining');
  assert.deepEqual(event.detail, { org: org.slug });
});

test('the address is matched case-insensitively, and must be verified: refusals say why', async () => {
  const owner = await signedIn(s, { verified: true });
  const org = await createOrg(owner);
  const lower = uniqueEmail('casey').toLowerCase();
  // Invited as typed with capitals; the account signed up in lower case.
  const { token } = await invited(org, owner, lower.toUpperCase());
  const unverified = await signup(s, { email: lower });
  const session = await login(s, unverified);

  const refused = await accept(session, token);
  assertProblem(refused, 403, 'FORBIDDEN');
  assertType(refused, PROBLEMS.invitationForOtherAddress);
  assert.match(refused.json.detail, /not verified/);

  const stranger = await signedIn(s, { verified: true });
  const other = await accept(stranger, token);
  assertProblem(other, 403, 'FORBIDDEN');
  assertType(other, PROBLEMS.invitationForOtherAddress);
  assert.match(other.json.detail, /sent to/);
  assert.ok(other.json.detail.includes(stranger.email), 'names the address signed in');
  assertProblem(await decline(stranger, token), 403, 'FORBIDDEN');

  // Neither joined; once verified, the invited account accepts.
  assertProblem(await s.request(`/api/orgs/${org.slug}`, { bearer: stranger.token }), 404, 'NOT_FOUND');
  await verify(s, unverified);
  const joined = await accept(session, token);
  assert.equal(joined.status, 200, joined.text);
  assert.equal(joined.json.role, 'member');
});

test('who may invite whom; bad input 400; an address already a member 409', async () => {
  const owner = await signedIn(s, { verified: true });
  const org = await createOrg(owner);
  const admin = await signedIn(s, { verified: true });
  const member = await signedIn(s, { verified: true });
  const stranger = await signedIn(s, { verified: true });
  await addMember(org, admin, 'admin');
  await addMember(org, member, 'member');

  assert.equal((await invite(org, admin, uniqueEmail('by-admin'), 'admin')).status, 201);
  assert.equal((await invite(org, admin, uniqueEmail('by-admin'), 'member')).status, 201);
  assertProblem(await invite(org, admin, uniqueEmail('owner-by-admin'), 'owner'), 403, 'FORBIDDEN', 'an admin cannot invite an owner');
  assert.equal((await invite(org, owner, uniqueEmail('owner-by-owner'), 'owner')).status, 201);
  assertProblem(await invite(org, member, uniqueEmail('by-member')), 403, 'FORBIDDEN');
  assertProblem(await invite(org, stranger, uniqueEmail('by-stranger')), 404, 'NOT_FOUND');
  assertProblem(await s.request(`/api/orgs/${org.slug}/invitations`, { bearer: member.token }), 403, 'FORBIDDEN');
  assertProblem(await s.request(`/api/orgs/${org.slug}/invitations`, { bearer: stranger.token }), 404, 'NOT_FOUND');
  assertProblem(await s.request(`/api/orgs/${org.slug}/invitations`, { method: 'POST', body: { email: uniqueEmail(), role: 'member' } }), 401, 'UNAUTHENTICATED');

  for (const body of [{ email: 'not an address', role: 'member' }, { email: uniqueEmail(), role: 'king' }, { email: uniqueEmail() }]) {
    assertProblem(await s.request(`/api/orgs/${org.slug}/invitations`, { method: 'POST', bearer: owner.token, body }), 400, 'BAD_REQUEST', JSON.stringify(body));
  }
  const taken = await invite(org, owner, member.email.toUpperCase());
  assertProblem(taken, 409, 'CONFLICT');
  assertType(taken, PROBLEMS.alreadyMember);
  assert.equal(s.smtp.to(member.email, 'org-invitation').length, 0, 'no email to a member');
});

test('revoke: 204, the link stops working, unknown 404; a new invitation to the same address replaces the pending one', async () => {
  const owner = await signedIn(s, { verified: true });
  const org = await createOrg(owner);
  const invitee = await signedIn(s, { verified: true });
  const first = await invited(org, owner, invitee.email);
  const second = await invited(org, owner, invitee.email, 'admin', 2);
  assert.deepEqual((await pendingOf(org, owner)).map((i) => [i.id, i.role]), [[second.id, 'admin']], 'the second replaced the first');
  assertProblem(await accept(invitee, first.token), 400, 'BAD_REQUEST');

  const revoked = await s.request(`/api/orgs/${org.slug}/invitations/${second.id}`, { method: 'DELETE', bearer: owner.token });
  assert.equal(revoked.status, 204, revoked.text);
  assert.deepEqual(await pendingOf(org, owner), []);
  const dead = await accept(invitee, second.token);
  assertProblem(dead, 400, 'BAD_REQUEST');
  assertType(dead, PROBLEMS.invalidInvitation);
  for (const id of [second.id, randomUUID(), 'not-a-uuid']) {
    const r = await s.request(`/api/orgs/${org.slug}/invitations/${id}`, { method: 'DELETE', bearer: owner.token });
    assertProblem(r, 404, 'NOT_FOUND', id);
    assertType(r, PROBLEMS.invitationNotFound);
  }
  const audit = await auditTypes(org, owner);
  assert.deepEqual(audit.slice(0, 4).map((e) => [e.type, e.target.reason ?? null]), [
    ['invitation_revoked', 'revoked'],
    ['member_invited', null],
    ['invitation_revoked', 'replaced'],
    ['member_invited', null],
  ]);
  assert.equal(audit[0]!.target.invitation_id, second.id);

  // An admin may not revoke an owner's invitation; a member may not revoke at all.
  const admin = await signedIn(s, { verified: true });
  const member = await signedIn(s, { verified: true });
  await addMember(org, admin, 'admin');
  await addMember(org, member, 'member');
  const forOwner = await invited(org, owner, uniqueEmail('future-owner'), 'owner');
  assertProblem(await s.request(`/api/orgs/${org.slug}/invitations/${forOwner.id}`, { method: 'DELETE', bearer: admin.token }), 403, 'FORBIDDEN');
  assertProblem(await s.request(`/api/orgs/${org.slug}/invitations/${forOwner.id}`, { method: 'DELETE', bearer: member.token }), 403, 'FORBIDDEN');
});

test('decline: 204 by the invited account (verified or not), the invitation is revoked', async () => {
  const owner = await signedIn(s, { verified: true });
  const org = await createOrg(owner);
  const invitee = await signedIn(s);
  const { id, token } = await invited(org, owner, invitee.email);
  const r = await decline(invitee, token);
  assert.equal(r.status, 204, r.text);
  assertProblem(await decline(invitee, token), 400, 'BAD_REQUEST');
  assertProblem(await accept(invitee, token), 400, 'BAD_REQUEST');
  assert.deepEqual(await pendingOf(org, owner), []);
  const [last] = await auditTypes(org, owner);
  assert.equal(last!.type, 'invitation_revoked');
  assert.deepEqual(last!.target, { invitation_id: id, email: invitee.email, role: 'member', reason: 'declined' });
  assert.equal(last!.actor?.email, invitee.email);
});

test('an invitation expires after 7 days: its link answers 400 and it is no longer listed', async () => {
  const owner = await signedIn(s, { verified: true });
  const org = await createOrg(owner);
  const invitee = await signedIn(s, { verified: true });
  const { token } = await invited(org, owner, invitee.email);
  s.clock.advance(7 * 24 * 3600_000 - 60_000);
  assert.equal((await pendingOf(org, owner)).length, 1, 'still pending a minute before');
  s.clock.advance(2 * 60_000);
  assert.deepEqual(await pendingOf(org, owner), []);
  const r = await accept(invitee, token);
  assertProblem(r, 400, 'BAD_REQUEST');
  assertType(r, PROBLEMS.invalidInvitation);
  assertProblem(await s.request(`/api/orgs/${org.slug}`, { bearer: invitee.token }), 404, 'NOT_FOUND');
});

test('unknown and malformed tokens: 400; signed out: 401', async () => {
  const who = await signedIn(s, { verified: true });
  for (const token of ['a'.repeat(32), 'short', 42, '']) {
    const r = await accept(who, token);
    assertProblem(r, 400, 'BAD_REQUEST', String(token));
  }
  assertProblem(await decline(who, 'b'.repeat(32)), 400, 'BAD_REQUEST');
  assertProblem(await s.request('/api/invitations/accept', { method: 'POST', body: { token: 'a'.repeat(32) } }), 401, 'UNAUTHENTICATED');
});

test('at most 20 invitations sent per organization an hour: 429 invitation-limit with Retry-After, refused attempts counted', async () => {
  const owner = await signedIn(s, { verified: true });
  const org = await createOrg(owner);
  for (let i = 0; i < 19; i++) assert.equal((await invite(org, owner, uniqueEmail('hourly'))).status, 201, `invitation ${i + 1}`);
  // An attempt refused for another reason still counts.
  assertProblem(await invite(org, owner, owner.email), 409, 'CONFLICT');
  const r = await invite(org, owner, uniqueEmail('hourly'));
  assertProblem(r, 429, 'RATE_LIMITED');
  assertType(r, PROBLEMS.invitationLimit);
  assert.ok(Number(r.headers['retry-after']) <= 3600);
  // Another organization has its own budget.
  const other = await createOrg(owner);
  assert.equal((await invite(other, owner, uniqueEmail('hourly'))).status, 201);
});

test('at most 40 invitations sent per inviter an hour, across organizations: another admin still may', async () => {
  const owner = await signedIn(s, { verified: true });
  const [a, b, c] = [await createOrg(owner), await createOrg(owner), await createOrg(owner)];
  for (const org of [a, b]) {
    for (let i = 0; i < 20; i++) assert.equal((await invite(org!, owner, uniqueEmail('inviter'))).status, 201);
  }
  const r = await invite(c!, owner, uniqueEmail('inviter'));
  assertProblem(r, 429, 'RATE_LIMITED');
  assertType(r, PROBLEMS.invitationLimit);
  assert.match(r.json.detail, /across your organizations/);
  assert.ok(Number(r.headers['retry-after']) <= 3600);
  const admin = await signedIn(s, { verified: true });
  await s.deps.db.orgMember.create({ data: { orgId: c!.id, accountId: admin.id, role: 'admin' } });
  assert.equal((await invite(c!, admin, uniqueEmail('inviter'))).status, 201);
});

test('at most 50 pending invitations: 429 invitation-limit until one is revoked (expired ones do not count)', async () => {
  const owner = await signedIn(s, { verified: true });
  const org = await createOrg(owner);
  const now = s.clock.now();
  const row = (i: number, expiresAt: Date) => {
    const email = `pending-${i}-${randomUUID()}@example.com`;
    return { orgId: org.id, email, emailNormalized: email, role: 'member', tokenHash: hashToken(randomUUID()), invitedBy: owner.id, createdAt: now, expiresAt };
  };
  await s.deps.db.orgInvitation.createMany({ data: Array.from({ length: 49 }, (_, i) => row(i, new Date(now.getTime() + 3 * 24 * 3600_000))) });
  // An expired one is not pending.
  await s.deps.db.orgInvitation.create({ data: row(99, new Date(now.getTime() - 1000)) });
  assert.equal((await invite(org, owner, uniqueEmail('fiftieth'))).status, 201);
  assert.equal((await pendingOf(org, owner)).length, 50);
  const r = await invite(org, owner, uniqueEmail('fifty-first'));
  assertProblem(r, 429, 'RATE_LIMITED');
  assertType(r, PROBLEMS.invitationLimit);
  // Retry-After: when the first pending one expires (3 days).
  const wait = Number(r.headers['retry-after']);
  assert.ok(wait > 3 * 24 * 3600 - 120 && wait <= 3 * 24 * 3600, `Retry-After ${wait}`);
  const victim = (await pendingOf(org, owner))[0]!;
  assert.equal((await s.request(`/api/orgs/${org.slug}/invitations/${victim.id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
  assert.equal((await invite(org, owner, uniqueEmail('fifty-first'))).status, 201);
});

test('the hourly limit never fails open: with the cache unreachable it is counted in process', async () => {
  const owner = await signedIn(s, { verified: true });
  const org = await createOrg(owner);
  const cache = s.deps.cache as unknown as Record<string, unknown>;
  const broken = () => Promise.reject(new Error('cache unreachable'));
  cache.hit = broken;
  cache.hitMany = broken;
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await invite(org, owner, uniqueEmail('outage'))).status);
    assert.deepEqual(statuses, [...Array<number>(20).fill(201), 429]);
  } finally {
    delete cache.hit;
    delete cache.hitMany;
  }
});

test('at most 1,000 members: accepting past it is 409 member-limit, and the list stays whole', async () => {
  const owner = await signedIn(s, { verified: true });
  const org = await createOrg(owner);
  // 998 more members (made in SQL: accounts with no password, nothing else), 999 in all.
  const tag = randomUUID().slice(0, 8);
  await s.deps.db.$executeRaw`
    INSERT INTO accounts (id, email, email_normalized, slug, email_verified, updated_at)
    SELECT ${tag} || '-' || i, 'm' || i || '-' || ${tag} || '@example.com', 'm' || i || '-' || ${tag} || '@example.com', 'm' || i || '-' || ${tag}, true, now()
    FROM generate_series(1, 998) AS i`;
  await s.deps.db.$executeRaw`INSERT INTO org_members (org_id, account_id, role) SELECT ${org.id}, ${tag} || '-' || i, 'member' FROM generate_series(1, 998) AS i`;
  const [last, late] = [await signedIn(s, { verified: true }), await signedIn(s, { verified: true })];
  const first = await invited(org, owner, last.email);
  const second = await invited(org, owner, late.email);
  assert.equal((await accept(last, first.token)).status, 200);
  const refused = await accept(late, second.token);
  assertProblem(refused, 409, 'CONFLICT');
  assertType(refused, PROBLEMS.memberLimit);
  const members = await s.request(`/api/orgs/${org.slug}/members`, { bearer: owner.token });
  assert.equal(members.json.members.length, 1000);
  assert.ok(members.json.members.some((m: { account_id: string }) => m.account_id === last.id));
  // The invitation was not used up: once someone leaves, it works.
  assert.equal((await s.request(`/api/orgs/${org.slug}/members/${last.id}`, { method: 'DELETE', bearer: last.token })).status, 204);
  assert.equal((await accept(late, second.token)).status, 200);
});

test('two accepts of one link at once: one joins, the other is refused; one member, one member_joined', async () => {
  const owner = await signedIn(s, { verified: true });
  const org = await createOrg(owner);
  const invitee = await signedIn(s, { verified: true });
  const second = await login(s, invitee);
  const { token } = await invited(org, owner, invitee.email);
  const results = await Promise.all([accept(invitee, token), accept(second, token)]);
  assert.deepEqual(results.map((r) => r.status).sort(), [200, 400], results.map((r) => r.text).join(' | '));
  assert.equal(await s.deps.db.orgMember.count({ where: { orgId: org.id, accountId: invitee.id } }), 1);
  const audit = await auditTypes(org, owner);
  assert.equal(audit.filter((e) => e.type === 'member_joined').length, 1);
  const row = await s.deps.db.orgInvitation.findFirstOrThrow({ where: { orgId: org.id } });
  assert.ok(row.acceptedAt);
  assert.equal(row.revokedAt, null);
});

test('GraphQL: invitations connection, invitation(token), the mutations; sessions only, no token reaches them', async () => {
  const owner = await signedIn(s, { verified: true });
  const org = await createOrg(owner, 'Graph Co');
  const invitee = await signedIn(s, { verified: true });
  const created = await gql(s, 'mutation ($slug: String!, $email: String!) { createInvitation(slug: $slug, email: $email, role: "member") { id email role createdAt expiresAt } }', { slug: org.slug, email: invitee.email }, { bearer: owner.token });
  assert.equal(gqlCode(created), null, created.text);
  const id = created.json.data.createInvitation.id;
  const listed = await gql(s, 'query ($slug: String!) { organization(slug: $slug) { invitations(first: 10) { edges { node { id email role } } } } }', { slug: org.slug }, { bearer: owner.token });
  assert.deepEqual(listed.json.data.organization.invitations.edges.map((e: { node: { id: string } }) => e.node.id), [id]);
  const token = decodeURIComponent((await s.smtp.waitFor(invitee.email, 'org-invitation')).token!);

  const preview = await gql(s, 'query ($token: String!) { invitation(token: $token) { org { slug name } email role expiresAt } }', { token }, { bearer: invitee.token });
  assert.equal(gqlCode(preview), null, preview.text);
  assert.deepEqual(preview.json.data.invitation.org, { slug: org.slug, name: 'Graph Co' });
  assert.deepEqual([preview.json.data.invitation.email, preview.json.data.invitation.role], [invitee.email, 'member']);
  assert.equal(gqlCode(await gql(s, 'query { invitation(token: "nope") { email } }', {}, { bearer: invitee.token })), 'BAD_REQUEST');
  assert.equal(gqlCode(await gql(s, `query { invitation(token: "${token}") { email } }`)), 'UNAUTHENTICATED');

  // A personal service token (even with every scope) reaches none of it.
  const t = await s.request('/api/tokens', { method: 'POST', bearer: owner.token, body: { name: 'ci', scopes: ['tunnels:read', 'tunnels:write', 'account:read'] } });
  assert.equal(t.status, 201, t.text);
  const byToken = await gql(s, 'query ($slug: String!) { organization(slug: $slug) { invitations(first: 1) { edges { node { id } } } } }', { slug: org.slug }, { bearer: t.json.token });
  assert.equal(gqlCode(byToken), 'FORBIDDEN');
  assertProblem(await invite(org, { ...owner, token: t.json.token }, uniqueEmail('by-token')), 403, 'FORBIDDEN');
  const t2 = await s.request('/api/tokens', { method: 'POST', bearer: invitee.token, body: { name: 'ci', scopes: ['tunnels:read', 'tunnels:write', 'account:read'] } });
  assertProblem(await accept({ token: t2.json.token }, token), 403, 'FORBIDDEN');

  const accepted = await gql(s, 'mutation ($token: String!) { acceptInvitation(token: $token) { slug role } }', { token }, { bearer: invitee.token });
  assert.equal(gqlCode(accepted), null, accepted.text);
  assert.deepEqual(accepted.json.data.acceptInvitation, { slug: org.slug, role: 'member' });

  const other = await signedIn(s, { verified: true });
  const second = await gql(s, 'mutation ($slug: String!, $email: String!) { createInvitation(slug: $slug, email: $email, role: "admin") { id } }', { slug: org.slug, email: other.email }, { bearer: owner.token });
  const token2 = decodeURIComponent((await s.smtp.waitFor(other.email, 'org-invitation')).token!);
  const declined = await gql(s, 'mutation ($token: String!) { declineInvitation(token: $token) }', { token: token2 }, { bearer: other.token });
  assert.deepEqual(declined.json.data, { declineInvitation: true });
  const revokedAgain = await gql(s, 'mutation ($slug: String!, $id: ID!) { revokeInvitation(slug: $slug, id: $id) }', { slug: org.slug, id: second.json.data.createInvitation.id }, { bearer: owner.token });
  assert.equal(gqlCode(revokedAgain), 'NOT_FOUND');
  const third = await gql(s, 'mutation ($slug: String!, $email: String!) { createInvitation(slug: $slug, email: $email, role: "admin") { id } }', { slug: org.slug, email: other.email }, { bearer: owner.token });
  const revoked = await gql(s, 'mutation ($slug: String!, $id: ID!) { revokeInvitation(slug: $slug, id: $id) }', { slug: org.slug, id: third.json.data.createInvitation.id }, { bearer: owner.token });
  assert.deepEqual(revoked.json.data, { revokeInvitation: true });
});

test('an invitation stands only while its sender may still invite: removed or demoted since, the link answers 400', async () => {
  const owner = await signedIn(s, { verified: true });
  const org = await createOrg(owner);
  const admin = await signedIn(s, { verified: true });
  await addMember(org, admin, 'admin');
  const invitee = await signedIn(s, { verified: true });
  const sent = await invited(org, admin, invitee.email, 'admin');
  // The admin is removed before the invitee accepts.
  assert.equal((await s.request(`/api/orgs/${org.slug}/members/${admin.id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
  const refused = await accept(invitee, sent.token);
  assertProblem(refused, 400, 'BAD_REQUEST');
  assertType(refused, PROBLEMS.invalidInvitation);
  assertProblem(await s.request(`/api/orgs/${org.slug}`, { bearer: invitee.token }), 404, 'NOT_FOUND');
  // An owner's invitation to an owner, its sender demoted to admin since: refused too.
  const second = await signedIn(s, { verified: true });
  await addMember(org, second, 'owner');
  const other = await signedIn(s, { verified: true });
  const asOwner = await invited(org, second, other.email, 'owner');
  assert.equal((await s.request(`/api/orgs/${org.slug}/members/${second.id}`, { method: 'PATCH', bearer: owner.token, body: { role: 'admin' } })).status, 200);
  assertProblem(await accept(other, asOwner.token), 400, 'BAD_REQUEST');
});
