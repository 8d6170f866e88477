// Two server instances on one PostgreSQL and one Redis (REDIS_URL set): the resend cap and
// session revocation are shared, so neither can be dodged by landing on another instance.
// Without them each instance has its own memory store and database, so on the embedded defaults
// the tests are reported as skipped (CI runs both backends).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { login, signup } from '../../support/accounts.js';
import { needs } from '../../support/backends.js';
import { useFixture } from '../../support/fixture.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { TestSmtp } from '../../support/smtp.js';

const shared = needs(['DATABASE_URL', 'REDIS_URL'], 'two instances sharing state');
const smtp = useFixture(() => TestSmtp.start(), (m) => m.close(), shared);
const a = useServer(() => ({ smtp: smtp() }), shared);
const b = useServer(() => ({ smtp: smtp() }), shared);

test('the resend-verification cap (5 per 15 minutes) is shared by two instances', shared, async () => {
  const account = await signup(a);
  const session = await login(a, account);
  for (let i = 0; i < 5; i++) {
    const s = i % 2 === 0 ? a : b;
    assert.equal((await s.request('/auth/resend-verification', { method: 'POST', bearer: session.token })).status, 204);
  }
  assertProblem(await b.request('/auth/resend-verification', { method: 'POST', bearer: session.token }), 429, 'RATE_LIMITED');
  assertProblem(await a.request('/auth/resend-verification', { method: 'POST', bearer: session.token }), 429, 'RATE_LIMITED');
});

test('a session revoked on instance A fails on instance B on the very next request', shared, async () => {
  const account = await signup(a);
  const victim = await login(a, account);
  const caller = await login(a, account);
  assert.equal((await b.request('/api/account', { bearer: victim.token })).status, 200, 'cached on B');
  const id = (await a.request('/api/sessions', { bearer: caller.token })).json.sessions.find((x: { current: boolean }) => !x.current).id;
  assert.equal((await a.request(`/api/sessions/${id}`, { method: 'DELETE', bearer: caller.token })).status, 204);
  assertProblem(await b.request('/api/account', { bearer: victim.token }), 401, 'UNAUTHENTICATED');
});

test('logout on A and logout-all on B are seen by the other instance at once', shared, async () => {
  const account = await signup(a);
  const one = await login(a, account);
  const two = await login(b, account);
  assert.equal((await b.request('/api/account', { bearer: one.token })).status, 200);
  assert.equal((await a.request('/api/account', { bearer: two.token })).status, 200);
  assert.equal((await a.request('/auth/logout', { method: 'POST', bearer: one.token })).status, 204);
  assertProblem(await b.request('/api/account', { bearer: one.token }), 401, 'UNAUTHENTICATED');
  const three = await login(a, account);
  assert.equal((await a.request('/api/account', { bearer: three.token })).status, 200);
  assert.equal((await b.request('/auth/logout-all', { method: 'POST', bearer: two.token })).status, 204);
  assertProblem(await a.request('/api/account', { bearer: three.token }), 401, 'UNAUTHENTICATED');
});

test('account deletion on B kills the sessions cached on A', shared, async () => {
  const account = await signup(a);
  const s1 = await login(a, account);
  assert.equal((await a.request('/api/account', { bearer: s1.token })).status, 200);
  const s2 = await login(b, account);
  const r = await b.request('/api/account', { method: 'DELETE', bearer: s2.token, body: { email: account.email, password: account.password } });
  assert.equal(r.status, 204);
  assertProblem(await a.request('/api/account', { bearer: s1.token }), 401, 'UNAUTHENTICATED');
});
