// Passkey challenges live only in the shared cache. While Redis is unreachable a ceremony answers
// 503 UNAVAILABLE (not an internal error) and password sign-in keeps working.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASSWORD, signup } from '../../support/accounts.js';
import { needs } from '../../support/backends.js';
import { assertProblem } from '../../support/problem.js';
import { startTestServer } from '../../support/server.js';
import { TcpProxy } from '../../support/tcp-proxy.js';

test('with the cache cut, passkey options are 503 and passwords still sign in', needs(['REDIS_URL'], 'a Redis to cut behind a proxy'), async () => {
  const redis = new URL(process.env.REDIS_URL!);
  const proxy = await TcpProxy.start(redis.hostname, Number(redis.port || 6379));
  const server = await startTestServer({ env: { REDIS_URL: TcpProxy.rewrite(process.env.REDIS_URL!, proxy.port) } });
  try {
    const a = await signup(server);
    assert.equal((await server.request('/auth/passkey/options', { method: 'POST', body: {} })).status, 200);
    await proxy.cut();
    assertProblem(await server.request('/auth/passkey/options', { method: 'POST', body: {} }), 503, 'UNAVAILABLE');
    const login = await server.request('/auth/login', { method: 'POST', body: { email: a.email, password: PASSWORD } });
    assert.equal(login.status, 200, login.text);
  } finally {
    await server.close();
    await proxy.cut();
  }
});
