// Redis Sentinel (1 master, 1 replica, 1 sentinel, from Debian's redis-server): the server finds
// the master through REDIS_SENTINEL_URLS / REDIS_SENTINEL_NAME, follows a failover within
// seconds, and loses no revocation: a tombstone counts once the replica acknowledged it (WAIT);
// one that cannot be acknowledged bumps the revocation epoch in PostgreSQL instead.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { timeOrderedTokenKey } from '../../src/infra/crypto/tokens.js';
import { login, signup, type Session } from '../support/accounts.js';
import { needs } from '../support/backends.js';
import { useFixture } from '../support/fixture.js';
import { assertProblem } from '../support/problem.js';
import { needsPrograms } from '../support/programs.js';
import { REDIS_PROGRAMS, startRedisSentinel } from '../support/redis-cluster.js';
import { startTestServer, type Server } from '../support/server.js';

const programs = needsPrograms(REDIS_PROGRAMS, 'a Sentinel-managed master and its replica');
const real = needs(['DATABASE_URL'], 'runs in the real-backend pass (revocations live in PostgreSQL)');
const opts = programs.skip ? programs : real;

const sentinel = useFixture(() => startRedisSentinel(), (s) => s.close(), opts);
const server = useFixture(
  () =>
    startTestServer({
      env: { REDIS_URL: undefined, REDIS_SENTINEL_URLS: sentinel().sentinelUrls.join(','), REDIS_SENTINEL_NAME: sentinel().name },
    }),
  (s) => s.close(),
  opts,
);

const keyOf = (s: Session) => `session:${timeOrderedTokenKey(s.token)}`;
const epoch = async (s: Server) => Number((await s.deps.db.cacheEpoch.findUnique({ where: { id: 1 } }))?.epoch ?? 0);

async function revoke(s: Server, caller: Session, victim: Session): Promise<void> {
  const id = (await s.request('/api/sessions', { bearer: victim.token })).json.sessions.find((x: { current: boolean }) => x.current).id;
  assert.equal((await s.request(`/api/sessions/${id}`, { method: 'DELETE', bearer: caller.token })).status, 204);
}

test('the master fails over: answers stay right, the cache follows the new master, no revocation is lost', opts, async () => {
  const s = server();
  const account = await signup(s);
  const caller = await login(s, account);
  const [before, during, survivor] = [await login(s, account), await login(s, account), await login(s, account)];
  for (const x of [before, during, survivor]) assert.equal((await s.request('/api/account', { bearer: x.token })).status, 200);

  const e0 = await epoch(s);
  await revoke(s, caller, before);
  assert.equal(await epoch(s), e0, 'the replica acknowledged the tombstone: no epoch bump needed');

  const failover = sentinel().failMaster();
  await new Promise((r) => setTimeout(r, 200));
  await revoke(s, caller, during);
  assert.ok((await epoch(s)) > e0, 'the tombstone could not be written: the epoch was bumped');
  for (const [x, status] of [[before, 401], [during, 401], [survivor, 200]] as const) {
    const t = Date.now();
    assert.equal((await s.request('/api/account', { bearer: x.token })).status, status);
    assert.ok(Date.now() - t < 5000, 'answered within a few seconds during the failover');
  }
  const { failoverMs } = await failover;
  assert.ok(failoverMs < 15_000, `failover took ${failoverMs} ms`);

  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      assert.equal(await s.deps.cache.get(keyOf(before)), 'revoked', 'the tombstone is on the promoted replica');
      break;
    } catch (err) {
      if (Date.now() > deadline || err instanceof assert.AssertionError) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  assertProblem(await s.request('/api/account', { bearer: before.token }), 401, 'UNAUTHENTICATED');
  assertProblem(await s.request('/api/account', { bearer: during.token }), 401, 'UNAUTHENTICATED');
  assert.equal((await s.request('/api/account', { bearer: survivor.token })).status, 200);

  // The promoted master has no replica left: a tombstone cannot be acknowledged, so the epoch moves.
  const e1 = await epoch(s);
  await revoke(s, caller, survivor);
  assert.ok((await epoch(s)) > e1, 'unacknowledged tombstone: the epoch was bumped');
  assertProblem(await s.request('/api/account', { bearer: survivor.token }), 401, 'UNAUTHENTICATED');
});
