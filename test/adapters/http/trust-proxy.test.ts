// Proxy-aware client IP (TRUST_PROXY, API.md section 1): `true` is one hop (the right-most
// X-Forwarded-For entry), a number that many hops, a list the proxies' CIDRs. A client can never
// choose its own address by prepending entries, and a value that is not an IP is never used.
// Observed through what the server records: the masked IP of the session list.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/infra/config.js';
import { signup } from '../../support/accounts.js';
import { startTestServer, type TestServer } from '../../support/server.js';

async function sessionIp(s: TestServer, xff: string | null): Promise<string> {
  const a = await signup(s);
  const login = await s.request('/auth/login', {
    method: 'POST',
    body: { email: a.email, password: a.password },
    headers: xff === null ? {} : { 'x-forwarded-for': xff },
  });
  assert.equal(login.status, 200, login.text);
  const list = await s.request('/api/sessions', { bearer: login.json.token });
  return list.json.sessions[0].ip as string;
}

async function withServer(trust: string, run: (s: TestServer) => Promise<void>): Promise<void> {
  const s = await startTestServer({ env: { TRUST_PROXY: trust } });
  try {
    await run(s);
  } finally {
    await s.close();
  }
}

test('TRUST_PROXY=true trusts one hop: the right-most entry; prepended entries are ignored', async () => {
  await withServer('true', async (s) => {
    assert.equal(await sessionIp(s, '198.51.100.7'), '198.51.100.x');
    assert.equal(await sessionIp(s, '203.0.113.9, 198.51.100.7'), '198.51.100.x', 'a forged left entry is not the client');
    assert.equal(await sessionIp(s, null), '127.0.0.x');
  });
});

test('a hop count trusts that many proxies from the right', async () => {
  await withServer('2', async (s) => {
    assert.equal(await sessionIp(s, '203.0.113.9, 198.51.100.7, 192.0.2.1'), '198.51.100.x');
  });
});

test('a CIDR list trusts only those proxies: the first address from the right outside them is the client', async () => {
  await withServer('127.0.0.1/32, 10.0.0.0/8', async (s) => {
    assert.equal(await sessionIp(s, '203.0.113.9, 198.51.100.7, 10.1.2.3'), '198.51.100.x');
  });
});

test('an X-Forwarded-For entry that is not an IP address is never used as one', async () => {
  await withServer('true', async (s) => {
    assert.equal(await sessionIp(s, 'not-an-ip'), '127.0.0.x', 'the connection address stands instead');
    assert.equal(await sessionIp(s, '198.51.100.7, <script>'), '127.0.0.x');
  });
});

test('TRUST_PROXY values: false, true, counts and CIDR lists parse; anything else stops start-up naming the variable', () => {
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, 1);
  assert.equal(loadConfig({ TRUST_PROXY: '3' }).trustProxy, 3);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, ::1, 2001:db8::/32' }).trustProxy, ['10.0.0.0/8', '::1', '2001:db8::/32']);
  for (const bad of ['yes', '10.0.0.0/33', 'proxy.example.com', '1.2.3.4/8/9']) {
    assert.throws(() => loadConfig({ TRUST_PROXY: bad }), (e: unknown) => e instanceof ConfigError && /TRUST_PROXY/.test(e.message), bad);
  }
});
