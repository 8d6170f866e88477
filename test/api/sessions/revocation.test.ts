// Sessions that end stay ended: a revocation made while Redis is unreachable is not undone when
// Redis returns (on this instance or another), sessions have an absolute 90-day lifetime beside
// the sliding 30 days, and an account holds at most 100 live sessions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { timeOrderedTokenKey } from '../../../src/infra/crypto/tokens.js';
import { PASSWORD, signup } from '../../support/accounts.js';
import { startTestServer, useServer, type Server } from '../../support/server.js';
import { TcpProxy } from '../../support/tcp-proxy.js';

const s = useServer();
const DAY = 24 * 3600_000;
const me = (server: Server, token: string) => server.request('/api/account', { bearer: token });
const login = async (server: Server, email: string) =>
  (await server.request('/auth/login', { method: 'POST', body: { email, password: PASSWORD } })).json.token as string;

test('a session ends 90 days after it was made, however often it is used', async () => {
  const a = await signup(s);
  const token = await login(s, a.email);
  for (let day = 29; day < 90; day += 29) {
    s.clock.advance(29 * DAY);
    assert.equal((await me(s, token)).status, 200, `still alive on day ${day}, the sliding window moved`);
  }
  s.clock.advance(4 * DAY); // day 91
  assert.equal((await me(s, token)).status, 401);
  assert.equal(await s.deps.db.session.count({ where: { accountId: a.id } }), 0);
});

test('an account holds at most 100 live sessions: a sign-in past that ends the least recently used one', async () => {
  const a = await signup(s);
  const first = await login(s, a.email);
  const tokens: string[] = [];
  for (let i = 0; i < 99; i++) tokens.push(await login(s, a.email));
  assert.equal(await s.deps.db.session.count({ where: { accountId: a.id } }), 100);
  assert.equal((await me(s, first)).status, 200, 'the 100th session does not end anything');
  // `first` was just used: the least recently used is now the second one made.
  s.clock.advance(2 * 60_000);
  assert.equal((await me(s, first)).status, 200);
  await login(s, a.email);
  assert.equal(await s.deps.db.session.count({ where: { accountId: a.id } }), 100);
  assert.equal((await me(s, tokens[0]!)).status, 401, 'the least recently used session ended');
  assert.equal((await me(s, first)).status, 200);
  const list = await s.request('/api/sessions', { bearer: first });
  assert.equal(list.json.sessions.length, 100);
});

test(
  'a revocation made while Redis is unreachable is not undone when Redis returns, on any instance',
  { skip: process.env.REDIS_URL && process.env.DATABASE_URL ? false : 'needs DATABASE_URL and REDIS_URL: two instances sharing Redis' },
  async () => {
    const proxy = await TcpProxy.start(new URL(process.env.REDIS_URL!).hostname, Number(new URL(process.env.REDIS_URL!).port || 6379));
    const b = await startTestServer({ smtp: s.smtp, env: { REDIS_URL: TcpProxy.rewrite(process.env.REDIS_URL!, proxy.port) } });
    try {
      const a = await signup(s);
      const token = await login(s, a.email);
      // Both instances have read (and cached) the session.
      assert.equal((await me(s, token)).status, 200);
      assert.equal((await me(b, token)).status, 200);
      proxy.block();
      const out = await b.request('/auth/logout', { method: 'POST', bearer: token });
      assert.equal(out.status, 204, out.text);
      assert.equal((await me(b, token)).status, 401, 'refused during the outage');
      proxy.unblock();
      // Let B's Redis client reconnect: the stale cache entry is reachable again.
      const deadline = Date.now() + 10_000;
      while ((await b.deps.cache.ping().then(() => true, () => false)) === false) {
        assert.ok(Date.now() < deadline, 'redis did not come back');
        await new Promise((r) => setTimeout(r, 100));
      }
      const stale = await s.deps.cache.get(`session:${timeOrderedTokenKey(token)}`);
      assert.ok(stale && stale !== 'revoked', 'the old cache entry survived the outage (the case under test)');
      for (let i = 0; i < 5; i++) assert.equal((await me(b, token)).status, 401, 'B never trusts the old entry again');
      await new Promise((r) => setTimeout(r, 1100)); // the other instance reads the epoch at most once a second
      assert.equal((await me(s, token)).status, 401, 'nor does A');
    } finally {
      proxy.unblock();
      await b.close();
      await proxy.cut();
    }
  },
);
