// POST /auth/signup, /auth/verify-email, /auth/resend-verification (API.md section 4, SPEC 3.1).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { login, signup, verify } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';

const APP_URL = 'https://app.example.test';
const s = useServer({ env: { APP_URL } });

const DAY = 24 * 3600_000;

test('signup answers 201 {id, email, email_verified:false, slug} and emails a verification link to APP_URL', async () => {
  const email = uniqueEmail('Signup');
  const r = await s.request('/auth/signup', { method: 'POST', body: { email, password: 'correct horse' } });
  assert.equal(r.status, 201);
  assert.deepEqual(Object.keys(r.json).sort(), ['email', 'email_verified', 'id', 'slug']);
  assert.equal(r.json.email, email, 'stored as given');
  assert.equal(r.json.email_verified, false);
  const mail = await s.smtp.waitFor(email, 'verify-email');
  assert.ok(mail.token);
  assert.ok(mail.links.includes(`${APP_URL}/verify-email?token=${mail.token}`), mail.links.join(' '));
});

test('signup refuses invalid emails and passwords outside 8..128 characters with 400 BAD_REQUEST', async () => {
  const bad: { email: string; password: string }[] = [
    { email: 'not-an-email', password: 'correct horse' },
    { email: '', password: 'correct horse' },
    { email: `${'a'.repeat(65)}@example.com`, password: 'correct horse' },
    { email: `a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(60)}.com`, password: 'correct horse' },
    { email: uniqueEmail(), password: 'seven77' },
    { email: uniqueEmail(), password: 'x'.repeat(129) },
    { email: uniqueEmail(), password: '' },
  ];
  for (const body of bad) {
    const r = await s.request('/auth/signup', { method: 'POST', body });
    assertProblem(r, 400, 'BAD_REQUEST');
  }
  const missing = await s.request('/auth/signup', { method: 'POST', body: { email: uniqueEmail() } });
  assertProblem(missing, 400, 'BAD_REQUEST');
});

test('a non-ASCII local part answers 400 and creates no account (it could never be answered back)', async () => {
  const email = `müller.${Date.now()}@example.com`;
  assertProblem(await s.request('/auth/signup', { method: 'POST', body: { email, password: 'correct horse' } }), 400, 'BAD_REQUEST');
  assert.equal(await s.deps.db.account.count({ where: { email } }), 0);
});

test('signup accepts passwords of exactly 8 and 128 characters (code points)', async () => {
  await signup(s, { password: '12345678' });
  await signup(s, { password: 'p'.repeat(128) });
  await signup(s, { password: '🔑'.repeat(8) });
});

test('signup with a taken email answers 409 CONFLICT, case-insensitively', async () => {
  const a = await signup(s);
  assertProblem(await s.request('/auth/signup', { method: 'POST', body: { email: a.email, password: 'another pass' } }), 409, 'CONFLICT');
  const upper = a.email.toUpperCase();
  assertProblem(await s.request('/auth/signup', { method: 'POST', body: { email: upper, password: 'another pass' } }), 409, 'CONFLICT');
});

test('verify-email marks the account verified and sends exactly one welcome email; a replay answers 200 and sends none', async () => {
  const a = await signup(s);
  const mail = await s.smtp.waitFor(a.email, 'verify-email');
  const r = await s.request('/auth/verify-email', { method: 'POST', body: { token: mail.token } });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json, { email_verified: true });
  await s.smtp.waitFor(a.email, 'welcome');
  const replay = await s.request('/auth/verify-email', { method: 'POST', body: { token: mail.token } });
  assert.equal(replay.status, 200);
  assert.deepEqual(replay.json, { email_verified: true });
  // A later mail to the same address proves the worker has moved past any second welcome.
  await s.request('/auth/forgot-password', { method: 'POST', body: { email: a.email } });
  await s.smtp.waitFor(a.email, 'reset-password');
  assert.equal(s.smtp.to(a.email, 'welcome').length, 1);
  const session = await login(s, a);
  const me = await s.request('/api/account', { bearer: session.token });
  assert.equal(me.json.email_verified, true);
  const row = await s.deps.db.account.findUniqueOrThrow({ where: { id: a.id } });
  assert.ok(row.welcomeSentAt);
});

test('a second verification link of a verified account sends no second welcome', async () => {
  const a = await signup(s);
  const session = await login(s, a);
  assert.equal((await s.request('/auth/resend-verification', { method: 'POST', bearer: session.token })).status, 204);
  const second = await s.smtp.waitFor(a.email, 'verify-email', 2);
  await verify(s, a, 1);
  await s.smtp.waitFor(a.email, 'welcome');
  const r = await s.request('/auth/verify-email', { method: 'POST', body: { token: second.token } });
  assert.ok(r.status === 200 || r.status === 400, r.text);
  await s.request('/auth/forgot-password', { method: 'POST', body: { email: a.email } });
  await s.smtp.waitFor(a.email, 'reset-password');
  assert.equal(s.smtp.to(a.email, 'welcome').length, 1);
});

test('verify-email answers 400 BAD_REQUEST for an unknown, malformed or missing token', async () => {
  for (const token of ['a'.repeat(32), 'nope', '', 42, null]) {
    assertProblem(await s.request('/auth/verify-email', { method: 'POST', body: { token } }), 400, 'BAD_REQUEST');
  }
  assertProblem(await s.request('/auth/verify-email', { method: 'POST', body: {} }), 400, 'BAD_REQUEST');
});

test('a verification link expires after 24 hours', async () => {
  const a = await signup(s);
  const mail = await s.smtp.waitFor(a.email, 'verify-email');
  s.clock.advance(DAY + 1000);
  assertProblem(await s.request('/auth/verify-email', { method: 'POST', body: { token: mail.token } }), 400, 'BAD_REQUEST');
  const row = await s.deps.db.account.findUniqueOrThrow({ where: { id: a.id } });
  assert.equal(row.emailVerified, false);
});

test('a verification link still works just before 24 hours', async () => {
  const a = await signup(s);
  const mail = await s.smtp.waitFor(a.email, 'verify-email');
  s.clock.advance(DAY - 60_000);
  assert.equal((await s.request('/auth/verify-email', { method: 'POST', body: { token: mail.token } })).status, 200);
});

test('resend-verification answers 204 with a new working link; 401 when signed out', async () => {
  const a = await signup(s);
  const session = await login(s, a);
  const r = await s.request('/auth/resend-verification', { method: 'POST', bearer: session.token });
  assert.equal(r.status, 204);
  assert.equal(r.text, '');
  const second = await s.smtp.waitFor(a.email, 'verify-email', 2);
  assert.ok(second.links.includes(`${APP_URL}/verify-email?token=${second.token}`));
  assert.equal((await s.request('/auth/verify-email', { method: 'POST', body: { token: second.token } })).status, 200);
  assertProblem(await s.request('/auth/resend-verification', { method: 'POST' }), 401, 'UNAUTHENTICATED');
  assertProblem(await s.request('/auth/resend-verification', { method: 'POST', bearer: 'b'.repeat(32) }), 401, 'UNAUTHENTICATED');
});

test('resend-verification on a verified account answers 204 and sends nothing', async () => {
  const a = await signup(s);
  await verify(s, a);
  const session = await login(s, a);
  assert.equal((await s.request('/auth/resend-verification', { method: 'POST', bearer: session.token })).status, 204);
  await s.request('/auth/forgot-password', { method: 'POST', body: { email: a.email } });
  await s.smtp.waitFor(a.email, 'reset-password');
  assert.equal(s.smtp.to(a.email, 'verify-email').length, 1);
});

test('resend-verification is capped at 5 per 15 minutes: the 6th answers 429 with Retry-After', async () => {
  const a = await signup(s);
  const session = await login(s, a);
  for (let i = 0; i < 5; i++) {
    assert.equal((await s.request('/auth/resend-verification', { method: 'POST', bearer: session.token })).status, 204);
  }
  const sixth = await s.request('/auth/resend-verification', { method: 'POST', bearer: session.token });
  assertProblem(sixth, 429, 'RATE_LIMITED');
  assert.ok(Number(sixth.headers['retry-after']) <= 15 * 60);
  await s.smtp.waitFor(a.email, 'verify-email', 6);
  // The signup link plus five resends; the refused sixth sent nothing.
  await s.request('/auth/forgot-password', { method: 'POST', body: { email: a.email } });
  await s.smtp.waitFor(a.email, 'reset-password');
  assert.equal(s.smtp.to(a.email, 'verify-email').length, 6);
});
