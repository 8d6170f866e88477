// POST /auth/change-email and /auth/confirm-email-change (SPEC 3.2, API.md section 4).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { login, signedIn, signup } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';

const APP_URL = 'https://app.example.test';
const s = useServer({ env: { APP_URL } });

const change = (token: string | undefined, body: Record<string, unknown>) =>
  s.request('/auth/change-email', { method: 'POST', body, ...(token ? { bearer: token } : {}) });
const confirm = (token: unknown) => s.request('/auth/confirm-email-change', { method: 'POST', body: { token } });

test('change-email answers 202 and mails a link to the new address; the old address stays until confirmed', async () => {
  const a = await signedIn(s);
  const newEmail = uniqueEmail('New');
  const r = await change(a.token, { current_password: a.password, new_email: newEmail });
  assert.equal(r.status, 202);
  const mail = await s.smtp.waitFor(newEmail, 'confirm-email-change');
  assert.ok(mail.links.includes(`${APP_URL}/confirm-email-change?token=${mail.token}`), mail.links.join(' '));
  assert.equal(s.smtp.to(a.email, 'confirm-email-change').length, 0, 'nothing to the old address');
  assert.equal((await s.request('/api/account', { bearer: a.token })).json.email, a.email);
  await login(s, a); // the old address still signs in

  const done = await confirm(mail.token);
  assert.equal(done.status, 200);
  assert.deepEqual(done.json, { email: newEmail });
  assert.equal((await s.request('/api/account', { bearer: a.token })).json.email, newEmail);
  await login(s, { email: newEmail, password: a.password });
  assertProblem(
    await s.request('/auth/login', { method: 'POST', body: { email: a.email, password: a.password } }),
    401,
    'UNAUTHENTICATED',
  );
  // Single use.
  assertProblem(await confirm(mail.token), 400, 'BAD_REQUEST');
});

test('change-email errors: 401 wrong password or signed out, 409 address in use, 400 invalid address', async () => {
  const a = await signedIn(s);
  const b = await signup(s);
  assertProblem(await change(a.token, { current_password: 'wrong password', new_email: uniqueEmail() }), 401, 'UNAUTHENTICATED');
  assertProblem(await change(undefined, { current_password: a.password, new_email: uniqueEmail() }), 401, 'UNAUTHENTICATED');
  assertProblem(await change(a.token, { current_password: a.password, new_email: b.email }), 409, 'CONFLICT');
  assertProblem(await change(a.token, { current_password: a.password, new_email: b.email.toUpperCase() }), 409, 'CONFLICT');
  for (const bad of ['nope', '', 'a@b', `${'x'.repeat(65)}@example.com`]) {
    assertProblem(await change(a.token, { current_password: a.password, new_email: bad }), 400, 'BAD_REQUEST');
  }
  assertProblem(await change(a.token, { current_password: a.password }), 400, 'BAD_REQUEST');
});

test('confirm-email-change answers 400 for an unknown token and for a link older than 24 hours', async () => {
  assertProblem(await confirm('a'.repeat(32)), 400, 'BAD_REQUEST');
  assertProblem(await confirm(''), 400, 'BAD_REQUEST');
  const a = await signedIn(s);
  const newEmail = uniqueEmail();
  assert.equal((await change(a.token, { current_password: a.password, new_email: newEmail })).status, 202);
  const mail = await s.smtp.waitFor(newEmail, 'confirm-email-change');
  s.clock.advance(24 * 3600_000 + 1000);
  assertProblem(await confirm(mail.token), 400, 'BAD_REQUEST');
  assert.equal((await s.deps.db.account.findUniqueOrThrow({ where: { id: a.id } })).email, a.email);
});

test('confirm-email-change answers 409 when the address was taken meanwhile', async () => {
  const a = await signedIn(s);
  const newEmail = uniqueEmail();
  assert.equal((await change(a.token, { current_password: a.password, new_email: newEmail })).status, 202);
  const mail = await s.smtp.waitFor(newEmail, 'confirm-email-change');
  await signup(s, { email: newEmail.toUpperCase() });
  assertProblem(await confirm(mail.token), 409, 'CONFLICT');
  assert.equal((await s.deps.db.account.findUniqueOrThrow({ where: { id: a.id } })).email, a.email);
});

test('a newer change request replaces the pending one', async () => {
  const a = await signedIn(s);
  const first = uniqueEmail('first');
  const second = uniqueEmail('second');
  await change(a.token, { current_password: a.password, new_email: first });
  const m1 = await s.smtp.waitFor(first, 'confirm-email-change');
  await change(a.token, { current_password: a.password, new_email: second });
  const m2 = await s.smtp.waitFor(second, 'confirm-email-change');
  assertProblem(await confirm(m1.token), 400, 'BAD_REQUEST');
  assert.equal((await confirm(m2.token)).status, 200);
});
