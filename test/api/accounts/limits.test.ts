// Limits that hold: every password attempt is counted before it is checked, the owner keeps a
// budget of their own on networks they signed in from, a ceiling stops distributed guessing,
// costly requests (sign-up, change-email) are bounded, and nothing fails open when the shared
// cache is unreachable.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { test } from 'node:test';
import { PASSWORD, fromIp, randomIp } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import { startTestServer, uniqueEmail, useServer, type Server } from '../../support/server.js';
import { TcpProxy } from '../../support/tcp-proxy.js';

const s = useServer({ env: { TRUST_PROXY: 'true' } });

async function account(server: Server, ip: string): Promise<string> {
  const email = uniqueEmail('limits');
  const r = await server.request('/auth/signup', { method: 'POST', body: { email, password: PASSWORD }, headers: fromIp(ip) });
  assert.equal(r.status, 201, r.text);
  return email;
}

const login = (server: Server, email: string, password: string, ip: string) =>
  server.request('/auth/login', { method: 'POST', body: { email, password }, headers: fromIp(ip) });

test('50 concurrent wrong passwords for one account: at most 10 are checked (401), the rest are 429', async () => {
  const ip = randomIp();
  const email = await account(s, ip);
  const replies = await Promise.all(Array.from({ length: 50 }, () => login(s, email, 'wrong password', ip)));
  const checked = replies.filter((r) => r.status === 401).length;
  assert.ok(checked <= 10, `${checked} passwords were checked`);
  assert.equal(replies.filter((r) => r.status === 429).length, 50 - checked);
  assertProblem((await login(s, email, PASSWORD, ip)), 429, 'RATE_LIMITED');
});

test('a stranger spraying from elsewhere does not lock the owner out of their own network', async () => {
  const home = randomIp();
  const email = await account(s, home);
  for (let i = 0; i < 15; i++) {
    const r = await login(s, email, `guess ${i}`, randomIp());
    assert.equal(r.status, i < 10 ? 401 : 429, `attempt ${i}: ${r.status}`);
  }
  const owner = await login(s, email, PASSWORD, home);
  assert.equal(owner.status, 200, owner.text);
  // The owner's own typos have their own budget of 10 on that network.
  for (let i = 0; i < 10; i++) assert.equal((await login(s, email, 'typo', home)).status, 401);
  assertProblem(await login(s, email, PASSWORD, home), 429, 'RATE_LIMITED');
});

test('a ceiling of 50 failures per account holds across every network, known ones included', async () => {
  const networks = Array.from({ length: 5 }, () => randomIp());
  const email = await account(s, networks[0]!);
  // Sign in once from each network, so each is a known network with a budget of its own.
  for (const ip of networks) assert.equal((await login(s, email, PASSWORD, ip)).status, 200);
  for (const ip of networks) for (let i = 0; i < 10; i++) assert.equal((await login(s, email, 'nope', ip)).status, 401);
  assertProblem(await login(s, email, PASSWORD, randomIp()), 429, 'RATE_LIMITED');
});

test('one network gets at most 50 password checks across accounts, even all at once', async () => {
  const ip = randomIp();
  // Unknown addresses burn a hash like any wrong password, and count against the network.
  const replies = await Promise.all(Array.from({ length: 70 }, () => login(s, uniqueEmail('spray'), 'wrong password', ip)));
  const checked = replies.filter((r) => r.status === 401).length;
  assert.ok(checked <= 50, `${checked} passwords were checked from one network`);
  assert.ok(checked >= 40, `only ${checked} were checked: the limit is 50`);
  assert.equal(replies.filter((r) => r.status === 429).length, 70 - checked);
});

test('successful sign-ins do not use up the network or the account ceiling, which count failures', async () => {
  const ip = randomIp();
  const email = await account(s, ip);
  // In waves of 5: the account's own budget (10) counts attempts in flight, successes included.
  for (let wave = 0; wave < 11; wave++) {
    const ok = await Promise.all(Array.from({ length: 5 }, () => login(s, email, PASSWORD, ip)));
    assert.deepEqual([...new Set(ok.map((r) => r.status))], [200], ok.map((r) => r.text).join('\n'));
  }
  // 55 counted and taken back: a wrong password from the same network is still checked.
  assert.equal((await login(s, uniqueEmail('after'), 'wrong password', ip)).status, 401);
  assert.equal((await login(s, email, 'wrong password', randomIp())).status, 401);
});

test('sign-ups are limited per client network (SIGNUP_RATE_LIMIT an hour)', async () => {
  const server = await startTestServer({ env: { TRUST_PROXY: 'true', SIGNUP_RATE_LIMIT: '3' } });
  try {
    // A network no other test signs up from (randomIp() is 10/8): with a limit of 3, one earlier
    // sign-up from the same /24 in a shared Redis would make the third one fail.
    const ip = `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`;
    for (let i = 0; i < 3; i++) await account(server, ip);
    const refused = await server.request('/auth/signup', {
      method: 'POST',
      body: { email: uniqueEmail('limits'), password: PASSWORD },
      headers: fromIp(ip.replace(/\d+$/, '77')),
    });
    assertProblem(refused, 429, 'RATE_LIMITED');
    assert.equal((await account(server, randomIp())).length > 0, true, 'another network still signs up');
  } finally {
    await server.close();
  }
});

test('change-email is capped at 5 requests per 15 minutes per account', async () => {
  const ip = randomIp();
  const email = await account(s, ip);
  const token = (await login(s, email, PASSWORD, ip)).json.token as string;
  const change = () =>
    s.request('/auth/change-email', {
      method: 'POST',
      bearer: token,
      headers: fromIp(ip),
      body: { current_password: PASSWORD, new_email: uniqueEmail('moved') },
    });
  for (let i = 0; i < 5; i++) assert.equal((await change()).status, 202);
  assertProblem(await change(), 429, 'RATE_LIMITED');
});

test(
  'while Redis is unreachable the limits are counted in process: they never fail open',
  { skip: process.env.REDIS_URL ? false : 'needs REDIS_URL: the memory cache cannot become unreachable' },
  async () => {
    const redis = new URL(process.env.REDIS_URL!);
    const proxy = await TcpProxy.start(redis.hostname, Number(redis.port || 6379));
    const server = await startTestServer({ env: { TRUST_PROXY: 'true', REDIS_URL: TcpProxy.rewrite(process.env.REDIS_URL!, proxy.port) } });
    try {
      const ip = randomIp();
      const email = await account(server, ip);
      await proxy.cut();
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await login(server, email, 'wrong password', ip)).status);
      assert.deepEqual(statuses, [...Array<number>(10).fill(401), 429, 429]);
      assertProblem(await login(server, email, PASSWORD, ip), 429, 'RATE_LIMITED');
    } finally {
      await server.close();
    }
  },
);
