// Sessions (SPEC 2.2 and 3.3): hashed at rest, listed with a masked IP and a `current` marker,
// revoked effectively on the very next request, 30-day sliding lifetime, last_seen_at at most
// once a minute.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { generateToken, hashToken, timeOrderedTokenKey } from '../../../src/infra/crypto/tokens.js';
import { SESSION_TOKEN, fromIp, login, signedIn, signup } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { spyOnSql } from '../../support/sql-spy.js';

const s = useServer({ env: { TRUST_PROXY: 'true' } });

const DAY = 24 * 3600_000;
const me = (token: string) => s.request('/api/account', { bearer: token });

test('the sessions table holds only the SHA-256 of the token (behind its creation second), never the token', async () => {
  const a = await signedIn(s);
  assert.match(a.token, SESSION_TOKEN);
  const sha = createHash('sha256').update(a.token).digest('hex');
  const row = await s.deps.db.session.findUnique({ where: { tokenHash: `t${a.token.slice(0, 8)}${sha}` } });
  assert.ok(row, 'row found by the key');
  assert.equal(row.accountId, a.id);
  // The prefix is the creation second in base32hex, so keys sort as the sessions were made.
  assert.equal(parseInt(a.token.slice(0, 8), 32), Math.floor(row.createdAt.getTime() / 1000));
  const rows = await s.deps.db.$queryRaw<Record<string, unknown>[]>`SELECT * FROM sessions WHERE account_id = ${a.id}`;
  assert.ok(rows.length >= 1);
  assert.ok(!JSON.stringify(rows).includes(a.token), 'raw token found in the sessions table');
});

test('a session of a 32-character token (made before tokens carried their time) still authenticates', async () => {
  const a = await signedIn(s);
  const legacy = generateToken();
  await s.deps.db.session.create({
    data: { accountId: a.id, tokenHash: hashToken(legacy), userAgent: 'Old/1.0', ip: '203.0.113.0', expiresAt: new Date(s.clock.now().getTime() + DAY) },
  });
  const r = await me(legacy);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.email, a.email);
  // Its key is the bare hash: the time-prefixed form of the same token finds nothing.
  assert.equal((await me(`${a.token.slice(0, 8)}${legacy}`)).status, 401);
  const out = await s.request('/auth/logout', { method: 'POST', bearer: legacy });
  assert.equal(out.status, 204, out.text);
  assert.equal((await me(legacy)).status, 401);
});

test('GET /api/sessions lists live sessions with user agent, masked IP, times and the current marker', async () => {
  const a = await signup(s, { headers: fromIp('203.0.113.9') });
  const first = await login(s, a, { ...fromIp('203.0.113.9'), 'user-agent': 'FirstBrowser/1.0' });
  const second = await login(s, a, { ...fromIp('2001:db8:5:6::1'), 'user-agent': 'SecondBrowser/2.0' });
  const r = await s.request('/api/sessions', { bearer: second.token });
  assert.equal(r.status, 200);
  assert.equal(r.json.sessions.length, 2);
  for (const x of r.json.sessions) {
    assert.deepEqual(Object.keys(x).sort(), ['created_at', 'current', 'id', 'ip', 'last_seen_at', 'method', 'second_step', 'user_agent']);
    assert.equal(x.method, 'password');
    assert.equal(x.second_step, false);
    assert.ok(!Number.isNaN(Date.parse(x.created_at)) && !Number.isNaN(Date.parse(x.last_seen_at)));
  }
  const cur = r.json.sessions.find((x: { current: boolean }) => x.current);
  const other = r.json.sessions.find((x: { current: boolean }) => !x.current);
  assert.equal(cur.user_agent, 'SecondBrowser/2.0');
  assert.equal(cur.ip, '2001:db8:5::x');
  assert.equal(other.user_agent, 'FirstBrowser/1.0');
  assert.equal(other.ip, '203.0.113.x');
  const fromFirst = await s.request('/api/sessions', { bearer: first.token });
  assert.equal(fromFirst.json.sessions.find((x: { current: boolean }) => x.current).id, other.id);
  assertProblem(await s.request('/api/sessions'), 401, 'UNAUTHENTICATED');
});

test('DELETE /api/sessions/<id> revokes another session, effective on its very next request', async () => {
  const a = await signup(s);
  const victim = await login(s, a);
  const caller = await login(s, a);
  assert.equal((await me(victim.token)).status, 200, 'victim session cached');
  const list = await s.request('/api/sessions', { bearer: caller.token });
  const victimId = list.json.sessions.find((x: { current: boolean }) => !x.current).id;
  const r = await s.request(`/api/sessions/${victimId}`, { method: 'DELETE', bearer: caller.token });
  assert.equal(r.status, 204);
  assertProblem(await me(victim.token), 401, 'UNAUTHENTICATED');
  assertProblem(await s.request('/api/account', { cookie: `session=${victim.token}` }), 401, 'UNAUTHENTICATED');
  assert.equal((await me(caller.token)).status, 200);
  assertProblem(await s.request(`/api/sessions/${victimId}`, { method: 'DELETE', bearer: caller.token }), 404, 'NOT_FOUND');
});

test('DELETE /api/sessions/<own id> answers 400; unknown or foreign ids answer 404; signed out 401', async () => {
  const a = await signedIn(s);
  const b = await signedIn(s);
  const own = (await s.request('/api/sessions', { bearer: a.token })).json.sessions[0].id;
  assertProblem(await s.request(`/api/sessions/${own}`, { method: 'DELETE', bearer: a.token }), 400, 'BAD_REQUEST');
  assert.equal((await me(a.token)).status, 200, 'the own session survives');
  assertProblem(await s.request('/api/sessions/00000000-0000-0000-0000-000000000000', { method: 'DELETE', bearer: a.token }), 404, 'NOT_FOUND');
  assertProblem(await s.request('/api/sessions/not-a-uuid', { method: 'DELETE', bearer: a.token }), 404, 'NOT_FOUND');
  const foreign = (await s.request('/api/sessions', { bearer: b.token })).json.sessions[0].id;
  assertProblem(await s.request(`/api/sessions/${foreign}`, { method: 'DELETE', bearer: a.token }), 404, 'NOT_FOUND');
  assert.equal((await me(b.token)).status, 200, 'the foreign session survives');
  assertProblem(await s.request(`/api/sessions/${foreign}`, { method: 'DELETE' }), 401, 'UNAUTHENTICATED');
});

test('logout ends only the current session, at once, and clears the cookie; 401 when signed out', async () => {
  const a = await signup(s);
  const one = await login(s, a);
  const two = await login(s, a);
  assert.equal((await me(one.token)).status, 200);
  const r = await s.request('/auth/logout', { method: 'POST', bearer: one.token });
  assert.equal(r.status, 204);
  const cleared = (r.headers['set-cookie'] ?? []).find((c) => c.startsWith('session='));
  assert.ok(cleared && /session=;/.test(cleared) && /Expires=Thu, 01 Jan 1970/i.test(cleared), String(cleared));
  assertProblem(await me(one.token), 401, 'UNAUTHENTICATED');
  assert.equal((await me(two.token)).status, 200);
  assertProblem(await s.request('/auth/logout', { method: 'POST', bearer: one.token }), 401, 'UNAUTHENTICATED');
  assertProblem(await s.request('/auth/logout', { method: 'POST' }), 401, 'UNAUTHENTICATED');
});

test('logout works with the cookie alone', async () => {
  const a = await signedIn(s);
  assert.equal((await s.request('/auth/logout', { method: 'POST', cookie: `session=${a.cookie}` })).status, 204);
  assertProblem(await me(a.token), 401, 'UNAUTHENTICATED');
});

test('logout-all ends every session of the account, the current one included; other accounts keep theirs', async () => {
  const a = await signup(s);
  const tokens = [await login(s, a), await login(s, a), await login(s, a)].map((x) => x.token);
  for (const t of tokens) assert.equal((await me(t)).status, 200);
  const other = await signedIn(s);
  assert.equal((await s.request('/auth/logout-all', { method: 'POST', bearer: tokens[0] })).status, 204);
  for (const t of tokens) assertProblem(await me(t), 401, 'UNAUTHENTICATED');
  assert.equal(await s.deps.db.session.count({ where: { accountId: a.id } }), 0);
  assert.equal((await me(other.token)).status, 200);
  assertProblem(await s.request('/auth/logout-all', { method: 'POST' }), 401, 'UNAUTHENTICATED');
});

test('last_seen_at is written at most once a minute', async () => {
  const a = await signedIn(s);
  const lastSeen = async () => (await s.deps.db.session.findFirstOrThrow({ where: { accountId: a.id } })).lastSeenAt.getTime();
  const created = await lastSeen();
  s.clock.advance(30_000);
  await me(a.token);
  assert.equal(await lastSeen(), created, 'no write within the first minute');
  s.clock.advance(31_000);
  await me(a.token);
  const firstTouch = await lastSeen();
  assert.ok(firstTouch > created, 'written once a minute has passed');
  s.clock.advance(20_000);
  await me(a.token);
  await me(a.token);
  assert.equal(await lastSeen(), firstTouch, 'not written again within the minute');
  s.clock.advance(45_000);
  await me(a.token);
  assert.ok((await lastSeen()) > firstTouch, 'written again after another minute');
  const listed = (await s.request('/api/sessions', { bearer: a.token })).json.sessions[0];
  assert.equal(Date.parse(listed.last_seen_at), await lastSeen());
});

test('a cold session check is one read; its due touch is written behind it, batched with others', async () => {
  const a = await signedIn(s);
  const b = await signedIn(s);
  const hashOf = timeOrderedTokenKey;
  // Warm: the account view is cached and the revocation epoch was read just now.
  assert.equal((await s.request('/api/account', { bearer: a.token })).status, 200);
  assert.equal((await s.request('/api/account', { bearer: b.token })).status, 200);
  await s.deps.touches.flush();
  s.clock.advance(2 * 3600_000);
  await s.deps.cache.del(`session:${hashOf(a.token)}`);
  await s.deps.cache.del(`session:${hashOf(b.token)}`);
  const { statements, restore } = spyOnSql(s);
  try {
    assert.equal((await s.request('/api/account', { bearer: a.token })).status, 200);
    assert.equal((await s.request('/api/account', { bearer: b.token })).status, 200);
    assert.equal(statements.length, 2, statements.join('\n---\n'));
    // GET /api/account shows the account: the session is read with its view, in one statement.
    for (const st of statements) assert.match(st, /^SELECT [^]*FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.token_hash = \$1$/);
    const row = await s.deps.db.session.findFirstOrThrow({ where: { tokenHash: hashOf(a.token) } });
    assert.ok(row.lastSeenAt.getTime() < row.createdAt.getTime() + 2 * 3600_000, 'not written by the request');
    assert.equal(s.deps.touches.size, 2, 'both touches queued');
    await s.deps.touches.flush();
    assert.equal(statements.length, 3, 'one statement writes both');
    assert.match(statements[2]!, /UPDATE sessions/);
  } finally {
    restore();
  }
  for (const t of [a.token, b.token]) {
    const row = await s.deps.db.session.findFirstOrThrow({ where: { tokenHash: hashOf(t) } });
    assert.ok(row.lastSeenAt.getTime() >= row.createdAt.getTime() + 2 * 3600_000, 'touched by the batch');
    assert.equal(row.expiresAt.getTime(), row.lastSeenAt.getTime() + 30 * 24 * 3600 * 1000, 'extended by it');
  }
  // The entry the check cached carries the touch: the next request writes nothing.
  const before = (await s.deps.db.session.findFirstOrThrow({ where: { tokenHash: hashOf(a.token) } })).lastSeenAt.getTime();
  s.clock.advance(1000);
  assert.equal((await s.request('/api/account', { bearer: a.token })).status, 200);
  assert.equal(s.deps.touches.size, 0);
  assert.equal((await s.deps.db.session.findFirstOrThrow({ where: { tokenHash: hashOf(a.token) } })).lastSeenAt.getTime(), before);
});

test("while its touch is queued, a cold check's entry lives no longer than the stored row", async () => {
  const a = await signedIn(s);
  const hash = timeOrderedTokenKey(a.token);
  await s.deps.touches.flush();
  const now = s.clock.now().getTime();
  // Near its stored expiry, last used two minutes ago: the check extends it in the cached copy.
  await s.deps.db.session.update({ where: { tokenHash: hash }, data: { expiresAt: new Date(now + 5 * 60_000), lastSeenAt: new Date(now - 2 * 60_000) } });
  await s.deps.cache.del(`session:${hash}`);
  const cache = s.deps.cache;
  const original = cache.setIfAbsent;
  const ttls: number[] = [];
  cache.setIfAbsent = (key, value, ttlMs) => {
    if (key === `session:${hash}`) ttls.push(ttlMs);
    return original.call(cache, key, value, ttlMs);
  };
  try {
    assert.equal((await s.request('/api/account', { bearer: a.token })).status, 200);
  } finally {
    cache.setIfAbsent = original;
  }
  assert.equal(s.deps.touches.size, 1);
  assert.equal(ttls.length, 1);
  assert.ok(ttls[0]! <= 5 * 60_000 && ttls[0]! > 4 * 60_000, `until the stored expiry, not the 10 minutes of a cached session: ${ttls[0]}`);
  const cached = JSON.parse((await s.deps.cache.get(`session:${hash}`))!) as { expiresAt: number };
  assert.ok(cached.expiresAt >= now + 30 * DAY, 'the cached copy carries the extension');
  await s.deps.touches.flush();
  assert.equal((await s.deps.db.session.findUniqueOrThrow({ where: { tokenHash: hash } })).expiresAt.getTime(), cached.expiresAt, 'as the touch wrote it');
});

test('a queued touch never brings back a revoked session, nor moves last_seen_at backwards', async () => {
  const a = await signup(s);
  const victim = await login(s, a);
  const caller = await login(s, a);
  const other = await signedIn(s);
  const hashOf = timeOrderedTokenKey;
  const victimRow = await s.deps.db.session.findFirstOrThrow({ where: { tokenHash: hashOf(victim.token) } });
  const otherRow = await s.deps.db.session.findFirstOrThrow({ where: { tokenHash: hashOf(other.token) } });
  const now = s.clock.now().getTime();
  const later = new Date(now + 5 * 60_000);
  await s.deps.db.session.update({ where: { id: otherRow.id }, data: { lastSeenAt: later } });
  // Queued for a session that is then revoked, and for one already seen later than the touch.
  s.deps.touches.add(victimRow.id, new Date(now + 60_000), new Date(now + 31 * DAY));
  s.deps.touches.add(otherRow.id, new Date(now + 60_000), new Date(now + 31 * DAY));
  assert.equal((await s.request(`/api/sessions/${victimRow.id}`, { method: 'DELETE', bearer: caller.token })).status, 204);
  await s.deps.touches.flush();
  assert.equal(await s.deps.db.session.findUnique({ where: { id: victimRow.id } }), null, 'still deleted');
  assert.equal((await s.deps.db.session.findUniqueOrThrow({ where: { id: otherRow.id } })).lastSeenAt.getTime(), later.getTime(), 'not moved back');
  assertProblem(await me(victim.token), 401, 'UNAUTHENTICATED');
});

test('the minute\'s touch moves the stored expiry only in steps of an hour or more (no index write per minute)', async () => {
  const a = await signedIn(s);
  const row = async () => {
    await s.deps.touches.flush();
    return s.deps.db.session.findFirstOrThrow({ where: { accountId: a.id } });
  };
  const first = await row();
  s.clock.advance(5 * 60_000);
  await me(a.token);
  const second = await row();
  assert.ok(second.lastSeenAt.getTime() > first.lastSeenAt.getTime(), 'last_seen_at written');
  assert.equal(second.expiresAt.getTime(), first.expiresAt.getTime(), 'expiry kept: it would move by 5 minutes');
  s.clock.advance(61 * 60_000);
  await me(a.token);
  const third = await row();
  assert.equal(third.expiresAt.getTime(), third.lastSeenAt.getTime() + 30 * 24 * 3600 * 1000, 'moved once an hour had passed');
  // The cached entry carries the stored expiry: past it, the session has ended.
  s.clock.advance(30 * 24 * 3600 * 1000 + 1000);
  assert.equal((await s.request('/api/account', { bearer: a.token })).status, 401);
});

test('a session idle for 30 days has expired', async () => {
  const a = await signedIn(s);
  assert.equal((await me(a.token)).status, 200);
  s.clock.advance(30 * DAY + 1000);
  assertProblem(await me(a.token), 401, 'UNAUTHENTICATED');
  assertProblem(await s.request('/api/account', { cookie: `session=${a.cookie}` }), 401, 'UNAUTHENTICATED');
});

test('using a session extends it: 20 days, a request, 20 more days is still signed in', async () => {
  const a = await signedIn(s);
  s.clock.advance(20 * DAY);
  assert.equal((await me(a.token)).status, 200);
  s.clock.advance(20 * DAY);
  assert.equal((await me(a.token)).status, 200, 'extended by the use at day 20');
  const row = await s.deps.db.session.findFirstOrThrow({ where: { accountId: a.id } });
  assert.ok(row.expiresAt.getTime() > s.clock.now().getTime() + 29 * DAY, 'expiry slid forward');
  s.clock.advance(30 * DAY + 1000);
  assertProblem(await me(a.token), 401, 'UNAUTHENTICATED');
});

test('GET /api/sessions omits expired sessions', async () => {
  const a = await signup(s);
  const old = await login(s, a);
  s.clock.advance(29 * DAY);
  const fresh = await login(s, a);
  s.clock.advance(2 * DAY);
  const r = await s.request('/api/sessions', { bearer: fresh.token });
  assert.equal(r.json.sessions.length, 1);
  assert.equal(r.json.sessions[0].current, true);
  assertProblem(await me(old.token), 401, 'UNAUTHENTICATED');
});

test('a list alone does not load the account view; asking for a field of it does', async () => {
  const a = await signedIn(s);
  const cache = s.deps.cache;
  const real = cache.getVersioned.bind(cache);
  let viewReads = 0;
  cache.getVersioned = (...args: Parameters<typeof real>) => {
    viewReads++;
    return real(...args);
  };
  try {
    assert.equal((await s.request('/api/sessions', { bearer: a.token })).status, 200);
    assert.equal((await s.request('/api/account/activity', { bearer: a.token })).status, 200);
    assert.equal(viewReads, 0, 'the lists read no account view');
    const r = await s.request('/graphql', { method: 'POST', bearer: a.token, body: { query: '{ me { id sessions { id } email } }' } });
    assert.equal(r.json.data.me.email, a.email);
    assert.equal(r.json.data.me.sessions.length, 1);
    assert.equal(viewReads, 1, 'email comes from the view');
    const f = await s.request('/graphql', { method: 'POST', bearer: a.token, body: { query: '{ me { ...F } } fragment F on Account { slug }' } });
    assert.equal(f.json.data.me.slug, a.slug);
  } finally {
    cache.getVersioned = real;
  }
});
