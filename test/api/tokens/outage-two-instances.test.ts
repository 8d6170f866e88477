// A revocation is never undone by a cache, for service tokens too: two instances, A and B, share
// PostgreSQL and a Redis that goes down (both reach it through one proxy). A `tsk_` token revoked
// on A during the outage is refused by B during the outage, and still refused by B after Redis
// returns with the entry cached before the outage in it: checked again and again for two seconds
// after the return (longer than an instance keeps its revocation epoch), and after B's cache has
// been filled again.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { signedIn, type SignedIn } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import type { Server } from '../../support/server.js';
import { shared, useInstancesBehindRedisProxy } from '../../support/redis-outage.js';

const { proxy, a, b, redisBack } = useInstancesBehindRedisProxy();

const me = (server: Server, token: string) => server.request('/api/account', { bearer: token });

async function newToken(owner: SignedIn, name: string): Promise<{ id: string; token: string }> {
  const r = await a().request('/api/tokens', { method: 'POST', bearer: owner.token, body: { name, scopes: ['account:read'] } });
  assert.equal(r.status, 201, r.text);
  return { id: r.json.id, token: r.json.token };
}

test('a service token revoked on A while Redis is down stays refused by B when Redis returns', shared, async () => {
  const owner = await signedIn(a(), { verified: true });
  const victim = await newToken(owner, 'revoked');
  const live = await newToken(owner, 'kept');
  // Both instances have read the token, and its entry is in Redis.
  assert.equal((await me(a(), victim.token)).status, 200);
  assert.equal((await me(b(), victim.token)).status, 200);
  assert.equal((await me(b(), live.token)).status, 200);
  proxy().block();
  try {
    const r = await a().request(`/api/tokens/${victim.id}`, { method: 'DELETE', bearer: owner.token });
    assert.equal(r.status, 204, r.text);
    assertProblem(await me(b(), victim.token), 401, 'UNAUTHENTICATED', 'refused by B during the outage');
  } finally {
    proxy().unblock();
  }
  await redisBack();
  const stale = await b().deps.cache.get(`session:${createHash('sha256').update(victim.token).digest('hex')}`);
  assert.ok(stale && stale !== 'revoked', 'the entry cached before the outage is in Redis again (the case under test)');
  const back = Date.now();
  for (let i = 0; Date.now() - back < 2500; i++) {
    const ms = Date.now() - back;
    assertProblem(await me(b(), victim.token), 401, 'UNAUTHENTICATED', `B, ${ms} ms after Redis returned`);
    assert.equal((await me(b(), live.token)).status, 200, 'the live token still works on B (and is cached again)');
    if (i % 3 === 0) assertProblem(await me(a(), victim.token), 401, 'UNAUTHENTICATED', `A, ${ms} ms after Redis returned`);
    await new Promise((r) => setTimeout(r, 50));
  }
});
