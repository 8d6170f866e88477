// Security activity and notices (API.md section 10): each sensitive change writes one event in
// its own transaction, newest first, with a masked IP; another account never sees them; paging is
// stable while events arrive; the notices arrive once each and carry no credential.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { PASSWORD, fromIp, login, signedIn, signup, type SignedIn } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { useServer, type Server } from '../../support/server.js';
import { LEASE_NAME, purgeExpired } from '../../../src/domain/retention/retention.js';

const s = useServer({ env: { TRUST_PROXY: 'true' } });

const UA = 'ActivityTest/1.0 (X11)';
const IP = '10.20.30.40';
const client = (ip = IP): Record<string, string> => ({ ...fromIp(ip), 'user-agent': UA });

interface EventJson {
  id: string;
  type: string;
  at: string;
  ip: string;
  user_agent: string;
  detail: Record<string, unknown>;
}

async function activity(server: Server, token: string, query = ''): Promise<{ events: EventJson[]; next_cursor: string | null }> {
  const r = await server.request(`/api/account/activity${query}`, { bearer: token });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

/** Types of the events of the account that are not sign-ins (sign-ins have their own tests). */
async function changeTypes(token: string): Promise<string[]> {
  return (await activity(s, token, '?limit=100')).events.map((e) => e.type).filter((t) => t !== 'sign_in');
}

const tag = () => randomBytes(3).toString('hex');

test('each sensitive change appears exactly once, newest first, with a masked IP and the user agent', async () => {
  const a = await signedIn(s, { headers: client() });
  const other = await login(s, a, client('10.9.9.9'));

  // Email change: requested, then confirmed from the link.
  const newEmail = `moved-${tag()}@example.com`;
  let r = await s.request('/auth/change-email', {
    method: 'POST',
    body: { current_password: PASSWORD, new_email: newEmail },
    bearer: a.token,
    headers: client(),
  });
  assert.equal(r.status, 202, r.text);
  const confirm = await s.smtp.waitFor(newEmail, 'confirm-email-change');
  r = await s.request('/auth/confirm-email-change', { method: 'POST', body: { token: confirm.token }, headers: client() });
  assert.equal(r.status, 200, r.text);

  r = await s.request('/auth/change-password', {
    method: 'POST',
    body: { current_password: PASSWORD, new_password: 'another long passphrase' },
    bearer: a.token,
    headers: client(),
  });
  assert.equal(r.status, 204, r.text);

  const slug = `act-${tag()}`;
  r = await s.request('/api/account/slug', { method: 'PATCH', body: { slug }, bearer: a.token, headers: client() });
  assert.equal(r.status, 200, r.text);

  // change-password ended the other session; sign in again to revoke one by hand.
  const again = await login(s, { email: newEmail, password: 'another long passphrase' }, client('10.9.9.9'));
  const sessions = await s.request('/api/sessions', { bearer: a.token });
  const victim = sessions.json.sessions.find((x: { current: boolean; id: string }) => !x.current);
  assert.ok(victim && other.token !== again.token);
  r = await s.request(`/api/sessions/${victim.id}`, { method: 'DELETE', bearer: a.token, headers: client() });
  assert.equal(r.status, 204, r.text);
  r = await s.request('/auth/logout-all', { method: 'POST', bearer: a.token, headers: client() });
  assert.equal(r.status, 204, r.text);

  const fresh = await login(s, { email: newEmail, password: 'another long passphrase' }, client());
  const { events } = await activity(s, fresh.token, '?limit=100');
  const changes = events.filter((e) => e.type !== 'sign_in');
  assert.deepEqual(
    changes.map((e) => e.type),
    ['sessions_revoked_all', 'session_revoked', 'slug_changed', 'password_changed', 'email_changed', 'email_change_requested'],
  );
  for (const e of changes) {
    assert.equal(e.ip, '10.20.30.x', `${e.type} ip`);
    assert.equal(e.user_agent, UA);
    assert.match(e.id, /^[0-9a-f-]{36}$/);
    assert.ok(!Number.isNaN(Date.parse(e.at)));
  }
  const byType = Object.fromEntries(changes.map((e) => [e.type, e.detail]));
  assert.deepEqual(byType.slug_changed, { from: a.slug, to: slug });
  assert.deepEqual(byType.email_changed, { new_email: newEmail });
  assert.deepEqual(byType.session_revoked, { session_id: victim.id });
  // Newest first, by time too.
  const times = events.map((e) => Date.parse(e.at));
  assert.deepEqual(times, [...times].sort((x, y) => y - x));

  // The notices: once each, to the address that owned the account at the time, no credential.
  const changed = await s.smtp.waitFor(a.email, 'email-changed');
  assert.match(changed.raw, new RegExp(newEmail.replace('.', '\\.')));
  const pw = await s.smtp.waitFor(newEmail, 'password-changed');
  for (const mail of [changed, pw]) {
    assert.equal(mail.token, null, `${mail.kind} carries no token`);
    assert.equal(mail.links.length, 0, `${mail.kind} carries no link`);
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(s.smtp.to(a.email, 'email-changed').length, 1);
  assert.equal(s.smtp.to(newEmail, 'password-changed').length, 1);
  assert.equal(s.smtp.to(newEmail, 'email-changed').length, 0, 'the new address is not told its own change');
});

test('a password reset is recorded and noticed; a failed change records nothing', async () => {
  const a = await signedIn(s, { headers: client() });
  // A wrong current password changes nothing, so nothing is recorded.
  let r = await s.request('/auth/change-password', {
    method: 'POST',
    body: { current_password: 'wrong password here', new_password: 'whatever long enough' },
    bearer: a.token,
    headers: client(),
  });
  assert.equal(r.status, 401);
  assert.deepEqual(await changeTypes(a.token), []);

  r = await s.request('/auth/forgot-password', { method: 'POST', body: { email: a.email } });
  assert.equal(r.status, 204);
  const mail = await s.smtp.waitFor(a.email, 'reset-password');
  r = await s.request('/auth/reset-password', {
    method: 'POST',
    body: { token: mail.token, new_password: 'a brand new passphrase' },
    headers: client('192.0.2.77'),
  });
  assert.equal(r.status, 204, r.text);
  const fresh = await login(s, { email: a.email, password: 'a brand new passphrase' });
  const events = (await activity(s, fresh.token)).events.filter((e) => e.type !== 'sign_in');
  assert.deepEqual(events.map((e) => [e.type, e.ip]), [['password_reset', '192.0.2.x']]);
  const notice = await s.smtp.waitFor(a.email, 'password-changed');
  assert.equal(notice.links.length, 0);
  assert.match(notice.subject, /reset/);
});

test('another account never sees the events; signed out is 401 on both surfaces', async () => {
  const a = await signedIn(s, { headers: client() });
  const b = await signedIn(s, { headers: client() });
  const r = await s.request('/api/account/slug', { method: 'PATCH', body: { slug: `own-${tag()}` }, bearer: a.token });
  assert.equal(r.status, 200);
  assert.deepEqual(await changeTypes(a.token), ['slug_changed']);
  assert.deepEqual(await changeTypes(b.token), []);
  // b cannot page into a's log with a cursor taken from a's.
  const aPage = await activity(s, a.token, '?limit=1');
  const cursorOfA = Buffer.from(`se1:${Number.MAX_SAFE_INTEGER}`).toString('base64url');
  const bPage = await activity(s, b.token, `?before=${cursorOfA}`);
  assert.ok(bPage.events.every((e) => !aPage.events.some((x) => x.id === e.id)));
  assert.ok(!bPage.events.some((e) => e.type === 'slug_changed'));

  assertProblem(await s.request('/api/account/activity'), 401, 'UNAUTHENTICATED');
  const g = await gql(s, '{ me { securityEvents { edges { node { id } } } } }');
  assert.equal(g.json.data.me, null);
});

async function renameMany(a: SignedIn, n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) {
    const r = await s.request('/api/account/slug', { method: 'PATCH', body: { slug: `pg-${tag()}-${i}` }, bearer: a.token });
    assert.equal(r.status, 200, r.text);
  }
}

test('newest first across a power of ten of positions (positions compare as numbers)', async () => {
  const a = await signedIn(s);
  const [row] = await s.deps.db.$queryRaw<{ max: string }[]>`SELECT coalesce(max(seq), 0)::text AS max FROM security_events`;
  const max = row?.max ?? '0';
  // Two positions either side of the next power of ten ("…99" and "…00": as text, the newer sorts last).
  let edge = 10n;
  while (edge <= BigInt(max) + 1n) edge *= 10n;
  const now = Date.now();
  // The identity moves forward only: the next two events take edge - 1 and edge.
  await s.deps.db.$executeRaw`SELECT setval(pg_get_serial_sequence('security_events', 'seq'), ${edge - 2n})`;
  await s.deps.db.securityEvent.create({ data: { accountId: a.id, type: 'slug_changed', at: new Date(now - 1000), ip: '10.0.0.x', userAgent: UA, detail: { from: 'a', to: 'b' } } });
  await s.deps.db.securityEvent.create({ data: { accountId: a.id, type: 'password_changed', at: new Date(now), ip: '10.0.0.x', userAgent: UA, detail: {} } });
  const seqs = await s.deps.db.securityEvent.findMany({ where: { accountId: a.id, type: { in: ['slug_changed', 'password_changed'] } }, select: { seq: true } });
  assert.deepEqual(seqs.map((e) => e.seq).sort((x, y) => (x < y ? -1 : 1)), [edge - 1n, edge]);
  const page = await activity(s, a.token, '?limit=2');
  assert.deepEqual(page.events.map((e) => e.type), ['password_changed', 'slug_changed']);
});

test('paging with limit and before is stable while new events arrive', async () => {
  const a = await signedIn(s);
  await renameMany(a, 7);
  const first = await activity(s, a.token, '?limit=3');
  assert.equal(first.events.length, 3);
  assert.ok(first.next_cursor);
  // New events arrive between pages: they do not shift the pages already being read.
  await renameMany(a, 2);
  const second = await activity(s, a.token, `?limit=3&before=${first.next_cursor}`);
  const third = await activity(s, a.token, `?limit=3&before=${second.next_cursor}`);
  const seen = [...first.events, ...second.events, ...third.events];
  const ids = seen.map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length, 'no event twice');
  // 7 renames + 1 sign-in, in order: the three pages hold exactly the events that existed at first.
  assert.deepEqual(seen.map((e) => e.type), [...Array<string>(7).fill('slug_changed'), 'sign_in'].slice(0, seen.length));
  assert.equal(seen.length, 8);
  assert.equal(third.next_cursor, null);
  // The newest two are on a fresh first page.
  const now = await activity(s, a.token, '?limit=2');
  assert.ok(now.events.every((e) => !ids.includes(e.id)));
});

test('bad paging input is a 400 problem on REST and a BAD_REQUEST on GraphQL', async () => {
  const a = await signedIn(s);
  for (const q of ['?limit=0', '?limit=101', '?limit=abc', '?limit=-1', '?before=nope', `?before=${Buffer.from('se1:abc').toString('base64url')}`]) {
    assertProblem(await s.request(`/api/account/activity${q}`, { bearer: a.token }), 400, 'BAD_REQUEST', q);
  }
  const g = await gql(s, '{ me { securityEvents(last: 2) { edges { node { id } } } } }', {}, { bearer: a.token });
  assert.equal(gqlCode(g), 'BAD_REQUEST');
});

test('GraphQL me.securityEvents is a Relay connection answering like REST', async () => {
  const a = await signedIn(s, { headers: client() });
  await renameMany(a, 3);
  const query = `query ($after: String) { me { securityEvents(first: 2, after: $after) {
    edges { cursor node { id type at ip userAgent detail } } pageInfo { hasNextPage endCursor } } } }`;
  const p1 = await gql(s, query, {}, { bearer: a.token });
  const c1 = p1.json.data.me.securityEvents;
  assert.equal(c1.edges.length, 2);
  assert.equal(c1.pageInfo.hasNextPage, true);
  assert.equal(c1.pageInfo.endCursor, c1.edges[1].cursor);
  const rest = await activity(s, a.token, '?limit=2');
  assert.deepEqual(c1.edges.map((e: { node: { id: string } }) => e.node.id), rest.events.map((e) => e.id));
  assert.equal(rest.next_cursor, c1.pageInfo.endCursor);
  const p2 = await gql(s, query, { after: c1.pageInfo.endCursor }, { bearer: a.token });
  const types = p2.json.data.me.securityEvents.edges.map((e: { node: { type: string } }) => e.node.type);
  assert.deepEqual(types, ['slug_changed', 'sign_in']);
  assert.equal(p2.json.data.me.securityEvents.pageInfo.hasNextPage, false);
});

test('events older than 90 days are purged, by one instance at a time; deletion takes the rest', async () => {
  const a = await signup(s);
  const now = new Date();
  const old = new Date(now.getTime() - 91 * 24 * 3600 * 1000);
  const recent = new Date(now.getTime() - 89 * 24 * 3600 * 1000);
  const row = (at: Date) => ({ accountId: a.id, type: 'slug_changed', at, ip: '10.0.0.x', userAgent: UA, detail: {} });
  await s.deps.db.securityEvent.createMany({ data: [row(old), row(recent)] });
  const purged = await purgeExpired({ sql: s.deps.sql, clock: () => now });
  assert.ok(purged !== null && purged.events >= 1);
  const left = await s.deps.db.securityEvent.findMany({ where: { accountId: a.id }, select: { at: true } });
  assert.deepEqual(left.map((e) => e.at.getTime()), [recent.getTime()]);

  // While another instance holds the retention lease, a purge does nothing and says so.
  await s.deps.db.lease.upsert({
    where: { name: LEASE_NAME },
    create: { name: LEASE_NAME, holder: 'another instance', expiresAt: new Date(Date.now() + 60_000) },
    update: { holder: 'another instance', expiresAt: new Date(Date.now() + 60_000) },
  });
  await s.deps.db.securityEvent.createMany({ data: [row(old)] });
  assert.equal(await purgeExpired({ sql: s.deps.sql, clock: () => now }), null);
  assert.equal(await s.deps.db.securityEvent.count({ where: { accountId: a.id } }), 2);
  await s.deps.db.lease.delete({ where: { name: LEASE_NAME } });

  const b = await signedIn(s);
  await renameMany(b, 1);
  assert.ok((await s.deps.db.securityEvent.count({ where: { accountId: b.id } })) >= 1);
  const r = await s.request('/api/account', { method: 'DELETE', body: { email: b.email, password: PASSWORD }, bearer: b.token });
  assert.equal(r.status, 204, r.text);
  assert.equal(await s.deps.db.securityEvent.count({ where: { accountId: b.id } }), 0);
});

test('the purge also drops spent second-step challenges (expired or used) and keeps live ones', async () => {
  const a = await signup(s);
  const now = new Date();
  const challenge = (name: string, expiresAt: Date, usedAt: Date | null = null) => ({
    accountId: a.id,
    tokenHash: `purge-test-${name}-${a.id}`,
    method: 'password',
    expiresAt,
    usedAt,
  });
  await s.deps.db.mfaChallenge.createMany({
    data: [
      challenge('expired', new Date(now.getTime() - 1000)),
      challenge('used', new Date(now.getTime() + 60_000), new Date(now.getTime() - 500)),
      challenge('live', new Date(now.getTime() + 60_000)),
    ],
  });
  const purged = await purgeExpired({ sql: s.deps.sql, clock: () => now });
  assert.ok(purged !== null && purged.challenges >= 2, JSON.stringify(purged));
  const left = await s.deps.db.mfaChallenge.findMany({ where: { accountId: a.id }, select: { tokenHash: true } });
  assert.deepEqual(left.map((c) => c.tokenHash), [`purge-test-live-${a.id}`]);
});
