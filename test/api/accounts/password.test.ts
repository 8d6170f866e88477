// Passwords: change, forgot and reset (with their effect on sessions), argon2id at rest and the
// re-hash on login when the parameters change.
import assert from 'node:assert/strict';
import argon2 from 'argon2';
import { test } from 'node:test';
import { login, signedIn, signup } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { OWASP_ARGON2ID } from '../../../src/domain/passwords/password.js';
import { argonParams } from '../../support/argon2.js';

const APP_URL = 'https://app.example.test';
// The server's own argon2id cost: the stored hash's parameters and the re-hash rule are under test.
const s = useServer({ env: { APP_URL }, passwordCost: OWASP_ARGON2ID });

const CURRENT = 'argon2id m=19456 t=2 p=1';

const me = (token: string) => s.request('/api/account', { bearer: token });
const changePw = (token: string | undefined, current: unknown, next: unknown) =>
  s.request('/auth/change-password', {
    method: 'POST',
    body: { current_password: current, new_password: next },
    ...(token ? { bearer: token } : {}),
  });
const forgot = (email: unknown) => s.request('/auth/forgot-password', { method: 'POST', body: { email } });
const reset = (token: unknown, password: unknown) =>
  s.request('/auth/reset-password', { method: 'POST', body: { token, new_password: password } });

test('the stored hash is argon2id', async () => {
  const a = await signup(s);
  const row = await s.deps.db.account.findUniqueOrThrow({ where: { id: a.id } });
  assert.equal(argonParams(row.passwordHash), CURRENT);
  assert.ok(!(row.passwordHash ?? '').includes(a.password));
});

test('change-password answers 204, keeps the current session and revokes every other one', async () => {
  const a = await signedIn(s);
  const other = await login(s, a);
  assert.equal((await me(other.token)).status, 200);
  const r = await changePw(a.token, a.password, 'a brand new password');
  assert.equal(r.status, 204);
  assert.equal((await me(a.token)).status, 200, 'current session stays');
  assertProblem(await me(other.token), 401, 'UNAUTHENTICATED');
  assertProblem(await s.request('/auth/login', { method: 'POST', body: { email: a.email, password: a.password } }), 401, 'UNAUTHENTICATED');
  await login(s, { email: a.email, password: 'a brand new password' });
  const row = await s.deps.db.account.findUniqueOrThrow({ where: { id: a.id } });
  assert.equal(argonParams(row.passwordHash), CURRENT);
});

test('change-password errors: 401 wrong current password or signed out, 400 length outside 8..128', async () => {
  const a = await signedIn(s);
  assertProblem(await changePw(a.token, 'wrong password', 'a brand new password'), 401, 'UNAUTHENTICATED');
  assertProblem(await changePw(undefined, a.password, 'a brand new password'), 401, 'UNAUTHENTICATED');
  assertProblem(await changePw(a.token, a.password, 'short'), 400, 'BAD_REQUEST');
  assertProblem(await changePw(a.token, a.password, '1234567'), 400, 'BAD_REQUEST');
  assertProblem(await changePw(a.token, a.password, 'x'.repeat(129)), 400, 'BAD_REQUEST');
  assert.equal((await me(a.token)).status, 200);
  assert.equal((await changePw(a.token, a.password, 'y'.repeat(128))).status, 204);
  assert.equal((await changePw(a.token, 'y'.repeat(128), '12345678')).status, 204);
});

test('forgot-password answers 204 for known and unknown addresses; only known ones get a 1-hour reset link', async () => {
  const a = await signup(s);
  const unknown = uniqueEmail('ghost');
  const r1 = await forgot(a.email.toUpperCase());
  const r2 = await forgot(unknown);
  assert.equal(r1.status, 204);
  assert.equal(r2.status, 204);
  assert.equal(r1.text, '');
  assert.equal(r2.text, '');
  const mail = await s.smtp.waitFor(a.email, 'reset-password');
  assert.ok(mail.links.includes(`${APP_URL}/reset-password?token=${mail.token}`), mail.links.join(' '));
  assert.equal(s.smtp.to(unknown).length, 0);
  assert.equal((await forgot('not an email at all')).status, 204);
});

test('forgot-password answers 400 only for a body that is not JSON', async () => {
  const r = await s.request('/auth/forgot-password', { method: 'POST', body: '{"email": ', headers: { 'content-type': 'application/json' } });
  assertProblem(r, 400, 'BAD_REQUEST');
  for (const body of ['{}', '{"email": 42}', '{"email": null}', '[]', '"a@b.c"']) {
    const ok = await s.request('/auth/forgot-password', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    assert.equal(ok.status, 204, body);
  }
});

test('reset-password sets the password and revokes every session; the link works once', async () => {
  const a = await signedIn(s);
  const other = await login(s, a);
  await forgot(a.email);
  const mail = await s.smtp.waitFor(a.email, 'reset-password');
  const r = await reset(mail.token, 'reset to this one');
  assert.equal(r.status, 204);
  assertProblem(await me(a.token), 401, 'UNAUTHENTICATED');
  assertProblem(await me(other.token), 401, 'UNAUTHENTICATED');
  await login(s, { email: a.email, password: 'reset to this one' });
  assertProblem(await reset(mail.token, 'and again this'), 400, 'BAD_REQUEST');
});

test('reset-password errors: 400 unknown token, 400 length, 400 after 1 hour', async () => {
  assertProblem(await reset('a'.repeat(32), 'long enough pw'), 400, 'BAD_REQUEST');
  assertProblem(await reset(undefined, 'long enough pw'), 400, 'BAD_REQUEST');
  const a = await signup(s);
  await forgot(a.email);
  const mail = await s.smtp.waitFor(a.email, 'reset-password');
  assertProblem(await reset(mail.token, 'short'), 400, 'BAD_REQUEST');
  assertProblem(await reset(mail.token, 'z'.repeat(129)), 400, 'BAD_REQUEST');
  s.clock.advance(3600_000 + 1000);
  assertProblem(await reset(mail.token, 'long enough pw'), 400, 'BAD_REQUEST');
  await login(s, a);
});

test('a reset link still works just before 1 hour', async () => {
  const a = await signup(s);
  await forgot(a.email);
  const mail = await s.smtp.waitFor(a.email, 'reset-password');
  s.clock.advance(3600_000 - 60_000);
  assert.equal((await reset(mail.token, 'in time password')).status, 204);
});

test('login re-hashes a password stored with other argon2 parameters', async () => {
  const a = await signup(s);
  const weak = await argon2.hash(a.password, { type: argon2.argon2id, memoryCost: 8192, timeCost: 1, parallelism: 1 });
  assert.equal(argonParams(weak), 'argon2id m=8192 t=1 p=1');
  await s.deps.db.account.update({ where: { id: a.id }, data: { passwordHash: weak } });
  await login(s, a);
  const row = await s.deps.db.account.findUniqueOrThrow({ where: { id: a.id } });
  assert.notEqual(row.passwordHash, weak);
  assert.equal(argonParams(row.passwordHash), CURRENT);
  await login(s, a);
});

test('an argon2i hash is upgraded to argon2id on login', async () => {
  const a = await signup(s);
  const old = await argon2.hash(a.password, { type: argon2.argon2i });
  await s.deps.db.account.update({ where: { id: a.id }, data: { passwordHash: old } });
  await login(s, a);
  const row = await s.deps.db.account.findUniqueOrThrow({ where: { id: a.id } });
  assert.equal(argonParams(row.passwordHash), CURRENT);
});
