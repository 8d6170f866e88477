// POST /auth/login: the answer, the cookie, the login alert by network, the attempt limits, and
// an unknown email that cannot be told from a wrong password (API.md sections 3 and 4).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromIp, login, randomIp, signup, type Account } from '../../support/accounts.js';
import { sessionCookie } from '../../support/http.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { timedClient } from '../../support/timed-client.js';
import { OWASP_ARGON2ID } from '../../../src/domain/passwords/password.js';

// The server's own argon2id cost: an unknown address must burn as long as a real verification.
const s = useServer({ env: { TRUST_PROXY: 'true' }, passwordCost: OWASP_ARGON2ID });

const attempt = (email: string, password: string, ip: string) =>
  s.request('/auth/login', { method: 'POST', body: { email, password }, headers: fromIp(ip) });

/** Waits for a later mail to the account, so that any alert queued before it has been delivered. */
async function flushMail(a: Account, n: number): Promise<void> {
  await s.request('/auth/forgot-password', { method: 'POST', body: { email: a.email } });
  await s.smtp.waitFor(a.email, 'reset-password', n);
}

test('login answers 200 {token, email_verified, expires_at} 30 days ahead and sets the session cookie', async () => {
  const a = await signup(s);
  const r = await attempt(a.email, a.password, '127.0.0.1');
  assert.equal(r.status, 200);
  assert.deepEqual(Object.keys(r.json).sort(), ['email_verified', 'expires_at', 'token']);
  assert.equal(r.json.email_verified, false);
  const expires = Date.parse(r.json.expires_at);
  assert.ok(Math.abs(expires - (s.clock.now().getTime() + 30 * 24 * 3600_000)) < 60_000, r.json.expires_at);
  assert.match(r.json.expires_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  const set = (r.headers['set-cookie'] ?? []).find((c) => c.startsWith('session='));
  assert.ok(set);
  assert.equal(sessionCookie(r), r.json.token);
  assert.match(set, /;\s*HttpOnly/i);
  assert.match(set, /;\s*SameSite=Lax/i);
  assert.match(set, /;\s*Path=\/(;|$)/i);
  assert.doesNotMatch(set, /;\s*Secure/i, 'BASE_URL is http');
  const byCookie = await s.request('/api/account', { cookie: `session=${r.json.token}` });
  assert.equal(byCookie.status, 200);
  assert.equal(byCookie.json.email, a.email);
});

test('login is case-insensitive on the email', async () => {
  const a = await signup(s);
  const r = await attempt(a.email.toUpperCase(), a.password, '127.0.0.1');
  assert.equal(r.status, 200);
});

test('an unknown email answers exactly like a wrong password, and burns a comparable hash time', async () => {
  const a = await signup(s);
  const ip = randomIp();
  const wrong = await attempt(a.email, 'wrong password', ip);
  const unknown = await attempt(uniqueEmail('nobody'), 'wrong password', ip);
  assertProblem(wrong, 401, 'UNAUTHENTICATED');
  assert.equal(unknown.status, wrong.status);
  assert.deepEqual(unknown.json, wrong.json);
  assert.equal(unknown.headers['content-type'], wrong.headers['content-type']);
  assert.equal(sessionCookie(unknown), null);
  // Each attempt is sent from a process of its own, as across the network, and measured twice:
  // the wall time the client sees, and the CPU this process (the server, nothing else: the client
  // is elsewhere) spent until the reply. Its after-reply work (the wrong password's activity
  // row) is done before the next attempt starts.
  const client = timedClient(s.url);
  const measure = async (email: string) => {
    const cpu = process.cpuUsage();
    const r = await client.post('/auth/login', { email, password: 'wrong password' }, fromIp(ip));
    const used = process.cpuUsage(cpu);
    assert.equal(r.status, 401);
    await s.deps.background.drain();
    return { ms: r.ms, cpuMs: (used.user + used.system) / 1000 };
  };
  type Sample = Awaited<ReturnType<typeof measure>>;
  const wrongs: Sample[] = [];
  const unknowns: Sample[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      wrongs.push(await measure(a.email));
      unknowns.push(await measure(uniqueEmail('nobody')));
    }
  } finally {
    client.close();
  }
  // The least of each: what the work takes at least (a busy machine only adds to a sample).
  const least = (xs: Sample[], key: keyof Sample) => Math.min(...xs.map((x) => x[key]));
  const seen = (key: keyof Sample, unit: string) =>
    `unknown ${least(unknowns, key).toFixed(1)} ${unit} vs wrong ${least(wrongs, key).toFixed(1)} ${unit} (each the least of ${unknowns.length})`;
  // The work: an unknown address burns a whole verification, as a wrong password spends one.
  // Measured as CPU, which other work on the machine does not inflate (on a loaded two-core run
  // the quickest wall times of the two differed by up to two times by chance).
  assert.ok(least(unknowns, 'cpuMs') >= 0.5 * least(wrongs, 'cpuMs'), `server CPU per attempt: ${seen('cpuMs', 'ms CPU')}`);
  // What a client sees: no answer comes in a fraction of the other's time (without the burn, an
  // unknown address answers in about a tenth), with room for that chance.
  assert.ok(least(unknowns, 'ms') >= 0.25 * least(wrongs, 'ms'), `wall time: ${seen('ms', 'ms')}`);
});

test('GET /api/account answers the profile with the masked last login; 401 without credentials', async () => {
  const ip = '198.51.100.77';
  const a = await signup(s, { headers: fromIp(ip) });
  const session = await login(s, a, fromIp(ip));
  const me = await s.request('/api/account', { bearer: session.token });
  assert.equal(me.status, 200);
  assert.deepEqual(Object.keys(me.json).sort(), [
    'email',
    'email_verified',
    'id',
    'last_login',
    'linked_providers',
    'mfa',
    'plan',
    'reauthenticated_until',
    'slug',
  ]);
  assert.deepEqual(me.json.mfa, { totp: false, recovery_codes_left: 0, passkeys: 0 });
  // Just signed in: recently authenticated for REAUTH_WINDOW_SECONDS (600) from the sign-in.
  assert.equal(Date.parse(me.json.reauthenticated_until) - Date.parse(me.json.last_login.at), 600_000);
  assert.equal(me.json.id, a.id);
  assert.equal(me.json.slug, a.slug);
  assert.equal(typeof me.json.plan, 'string');
  assert.deepEqual(me.json.linked_providers, []);
  assert.equal(me.json.last_login.ip, '198.51.100.x');
  assert.ok(Math.abs(Date.parse(me.json.last_login.at) - s.clock.now().getTime()) < 60_000);
  assertProblem(await s.request('/api/account'), 401, 'UNAUTHENTICATED');
  assertProblem(await s.request('/api/account', { bearer: 'not-a-token' }), 401, 'UNAUTHENTICATED');
  assertProblem(await s.request('/api/account', { cookie: 'session=zzzz' }), 401, 'UNAUTHENTICATED');
});

test('a sign-in from a new IPv4 /24 sends a login alert; the signup network and known networks do not', async () => {
  const a = await signup(s, { headers: fromIp('203.0.113.5') });
  await login(s, a, fromIp('203.0.113.200')); // same /24 as signup: known
  await login(s, a, fromIp('192.0.2.10')); // new
  const alert = await s.smtp.waitFor(a.email, 'login-alert');
  assert.match(alert.raw, /192\.0\.2\.x/);
  await login(s, a, fromIp('192.0.2.99')); // now known
  await flushMail(a, 1);
  assert.equal(s.smtp.to(a.email, 'login-alert').length, 1);
});

test('a sign-in from a new IPv6 /48 sends a login alert; another address of the same /48 does not', async () => {
  const a = await signup(s, { headers: fromIp('203.0.113.5') });
  await login(s, a, fromIp('2001:db8:1:2::1'));
  await s.smtp.waitFor(a.email, 'login-alert');
  await login(s, a, fromIp('2001:db8:1:ffff::5'));
  await flushMail(a, 1);
  assert.equal(s.smtp.to(a.email, 'login-alert').length, 1);
  await login(s, a, fromIp('2001:db8:2::1'));
  await s.smtp.waitFor(a.email, 'login-alert', 2);
  const sessions = await s.request('/api/sessions', { bearer: (await login(s, a, fromIp('2001:db8:2::7'))).token });
  assert.ok(sessions.json.sessions.some((x: { ip: string }) => x.ip === '2001:db8:1::x'), JSON.stringify(sessions.json));
});

test('failed logins are limited per account: past 10, even the right password gets 429 with Retry-After', async () => {
  const a = await signup(s);
  const ips = Array.from({ length: 12 }, () => randomIp());
  for (let i = 0; i < 10; i++) assertProblem(await attempt(a.email, 'wrong password', ips[i]!), 401, 'UNAUTHENTICATED');
  const limited = await attempt(a.email, a.password, ips[10]!);
  assertProblem(limited, 429, 'RATE_LIMITED');
  assert.ok(Number(limited.headers['retry-after']) <= 15 * 60);
  // Another account from the same addresses is not affected.
  const b = await signup(s);
  assert.equal((await attempt(b.email, b.password, ips[11]!)).status, 200);
});

test('failed logins are limited per client IP across accounts: past 50, 429 with Retry-After', async () => {
  const ip = randomIp();
  for (let i = 0; i < 50; i++) {
    assertProblem(await attempt(uniqueEmail('spray'), 'wrong password', ip), 401, 'UNAUTHENTICATED');
  }
  const a = await signup(s);
  assertProblem(await attempt(a.email, a.password, ip), 429, 'RATE_LIMITED');
  assert.equal((await attempt(a.email, a.password, randomIp())).status, 200);
});

test('a successful login clears the per-account failure count', async () => {
  const a = await signup(s);
  const ip = randomIp();
  for (let i = 0; i < 9; i++) await attempt(a.email, 'wrong password', ip);
  assert.equal((await attempt(a.email, a.password, ip)).status, 200);
  for (let i = 0; i < 9; i++) assertProblem(await attempt(a.email, 'wrong password', ip), 401, 'UNAUTHENTICATED');
});

test('login with a missing or non-string field answers 400', async () => {
  assertProblem(await s.request('/auth/login', { method: 'POST', body: { email: uniqueEmail() } }), 400, 'BAD_REQUEST');
  assertProblem(await s.request('/auth/login', { method: 'POST', body: { email: 1, password: 2 } }), 400, 'BAD_REQUEST');
});
