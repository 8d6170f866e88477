// A revocation is never undone by a cache: two instances, A and B, share PostgreSQL and a Redis
// that goes down (both reach it through one proxy). A session revoked on A during the outage is
// refused by B during the outage, and still refused by B after Redis returns with the entry cached
// before the outage in it: checked again and again for two seconds after the return (longer than
// an instance keeps its revocation epoch), and after B's cache has been filled again; likewise
// when B had no request during the outage (only its dropped connection tells it of the outage).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { timeOrderedTokenKey } from '../../../src/infra/crypto/tokens.js';
import { login, signup } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import type { Server } from '../../support/server.js';
import { shared, useInstancesBehindRedisProxy } from '../../support/redis-outage.js';

const { proxy, a, b, redisBack } = useInstancesBehindRedisProxy();

const me = (server: Server, token: string) => server.request('/api/account', { bearer: token });

/**
 * The outage around `revoke` (run on A), then B's answers for `victim`: refused during the
 * outage (unless B is `idle` then: only its connection's loss tells it), and at every check for
 * 2.5 s after Redis returns, while `live` (another session of the account) is accepted and cached
 * again by B meanwhile.
 */
async function revokedDuringOutage(victim: string, live: string, revoke: () => Promise<void>, idle = false): Promise<void> {
  // Both instances have read the session, and its entry is in Redis.
  assert.equal((await me(a(), victim)).status, 200);
  assert.equal((await me(b(), victim)).status, 200);
  assert.equal((await me(b(), live)).status, 200);
  proxy().block();
  try {
    await revoke();
    if (!idle) assertProblem(await me(b(), victim), 401, 'UNAUTHENTICATED', 'refused by B during the outage');
  } finally {
    proxy().unblock();
  }
  await redisBack();
  const stale = await b().deps.cache.get(`session:${timeOrderedTokenKey(victim)}`);
  assert.ok(stale && stale !== 'revoked', 'the entry cached before the outage is in Redis again (the case under test)');
  const back = Date.now();
  for (let i = 0; Date.now() - back < 2500; i++) {
    const ms = Date.now() - back;
    assertProblem(await me(b(), victim), 401, 'UNAUTHENTICATED', `B, ${ms} ms after Redis returned`);
    assert.equal((await me(b(), live)).status, 200, 'the live session still works on B (and is cached again)');
    if (i % 3 === 0) assertProblem(await me(a(), victim), 401, 'UNAUTHENTICATED', `A, ${ms} ms after Redis returned`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a session revoked on A (DELETE /api/sessions/<id>) while Redis is down stays refused by B when Redis returns', shared, async () => {
  const account = await signup(a());
  const victim = (await login(a(), account)).token;
  const caller = (await login(a(), account)).token;
  const id = (await a().request('/api/sessions', { bearer: caller })).json.sessions.find((x: { current: boolean }) => !x.current).id as string;
  await revokedDuringOutage(victim, caller, async () => {
    const r = await a().request(`/api/sessions/${id}`, { method: 'DELETE', bearer: caller });
    assert.equal(r.status, 204, r.text);
  });
});

test('a session logged out on A while Redis is down stays refused by B when Redis returns', shared, async () => {
  const account = await signup(a());
  const victim = (await login(a(), account)).token;
  const other = (await login(b(), account)).token;
  await revokedDuringOutage(victim, other, async () => {
    const r = await a().request('/auth/logout', { method: 'POST', bearer: victim });
    assert.equal(r.status, 204, r.text);
  });
});

test('a session revoked on A while Redis is down stays refused by B when Redis returns, B idle during the outage', shared, async () => {
  const account = await signup(a());
  const victim = (await login(a(), account)).token;
  const caller = (await login(a(), account)).token;
  const id = (await a().request('/api/sessions', { bearer: caller })).json.sessions.find((x: { current: boolean }) => !x.current).id as string;
  await revokedDuringOutage(
    victim,
    caller,
    async () => {
      const r = await a().request(`/api/sessions/${id}`, { method: 'DELETE', bearer: caller });
      assert.equal(r.status, 204, r.text);
    },
    true,
  );
});
