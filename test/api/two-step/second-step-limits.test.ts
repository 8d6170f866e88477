// Second-step codes have their own budget per account (API.md section 7a): at most 10 wrong codes
// an hour across the sign-in's second step, re-authentication by code and turning two-step off,
// whatever passwords or successes come between; past it every second-step attempt answers 429,
// a right code included. The third wrong code of the hour sends one mfa-failed notice. And the
// sign-ins waiting for their second step die with a reset, a password change, logout-all or
// two-step turned off.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASSWORD, fromIp, randomIp, signedIn, type SignedIn } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { codeAt, enableTwoStep, freshCode, type TwoStep } from '../../support/totp.js';

const s = useServer({ env: { TRUST_PROXY: 'true' } });

type Account = SignedIn & TwoStep & { headers: Record<string, string> };

async function twoStepAccount(): Promise<Account> {
  const headers = fromIp(randomIp());
  const a = await signedIn(s, { headers, verified: true });
  return { ...a, ...(await enableTwoStep(s, a)), headers };
}

const post = (a: Account, path: string, body: unknown, bearer?: string) => s.request(path, { method: 'POST', body, headers: a.headers, ...(bearer ? { bearer } : {}) });

/** A correct password: the first step, which clears the password budget each time. */
async function mfaToken(a: Account): Promise<string> {
  const r = await post(a, '/auth/login', { email: a.email, password: PASSWORD });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.mfa_required, true);
  return r.json.mfa_token;
}

const wrongCode = (a: Account) => String((Number(codeAt(a.secret, s.clock.now())) + 1) % 1_000_000).padStart(6, '0');

test('ten wrong codes an hour, across fresh passwords, then every second step is 429, a right code too', async () => {
  const a = await twoStepAccount();
  for (let i = 0; i < 10; i++) {
    // A new first step each time: before, a correct password gave five more guesses each time.
    const r = await post(a, '/auth/mfa/verify', { mfa_token: await mfaToken(a), code: wrongCode(a) });
    assertProblem(r, 401, 'UNAUTHENTICATED', `wrong code ${i + 1}`);
  }
  const right = await post(a, '/auth/mfa/verify', { mfa_token: await mfaToken(a), code: freshCode(s, a.secret) });
  assertProblem(right, 429, 'RATE_LIMITED', 'the right code past the budget');
  assert.ok(Number(right.headers['retry-after']) > 3000, `until the hour ends: ${right.headers['retry-after']}`);
  // Re-authentication and turning two-step off take codes too: also refused.
  assertProblem(await post(a, '/api/account/reauth', { code: freshCode(s, a.secret) }, a.token), 429, 'RATE_LIMITED', 'reauth by code');
  const off = await s.request('/api/account/mfa/totp', {
    method: 'DELETE',
    bearer: a.token,
    headers: a.headers,
    body: { current_password: PASSWORD, code: freshCode(s, a.secret) },
  });
  assertProblem(off, 429, 'RATE_LIMITED', 'turning two-step off');
  // The password still works (it is not a second step) but signs nobody in.
  assert.equal((await post(a, '/auth/login', { email: a.email, password: PASSWORD })).json.mfa_required, true);
  // Another account is not affected.
  const b = await twoStepAccount();
  const ok = await post(b, '/auth/mfa/verify', { mfa_token: await mfaToken(b), code: freshCode(s, b.secret) });
  assert.equal(ok.status, 200, ok.text);
});

test('a right code between wrong ones takes nothing off the count; reauth and disable count with sign-in', async () => {
  const a = await twoStepAccount();
  const reauthWrong = () => post(a, '/api/account/reauth', { code: wrongCode(a) }, a.token);
  const disableWrong = () =>
    s.request('/api/account/mfa/totp', { method: 'DELETE', bearer: a.token, headers: a.headers, body: { current_password: PASSWORD, code: wrongCode(a) } });
  for (let i = 0; i < 3; i++) assertProblem(await reauthWrong(), 401, 'UNAUTHENTICATED', `reauth ${i}`);
  for (let i = 0; i < 3; i++) assertProblem(await disableWrong(), 400, 'BAD_REQUEST', `disable ${i}`);
  const good = await post(a, '/auth/mfa/verify', { mfa_token: await mfaToken(a), code: freshCode(s, a.secret) });
  assert.equal(good.status, 200, 'a right code within the budget signs in');
  for (let i = 0; i < 4; i++) {
    assertProblem(await post(a, '/auth/mfa/verify', { mfa_token: await mfaToken(a), code: wrongCode(a) }), 401, 'UNAUTHENTICATED', `verify ${i}`);
  }
  assertProblem(await post(a, '/api/account/reauth', { code: freshCode(s, a.secret) }, a.token), 429, 'RATE_LIMITED', 'the 11th attempt');
});

test('the third wrong code of the hour sends one mfa-failed notice, and no more that hour', async () => {
  const a = await twoStepAccount();
  for (let i = 0; i < 2; i++) await post(a, '/auth/mfa/verify', { mfa_token: await mfaToken(a), code: wrongCode(a) });
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(s.smtp.to(a.email, 'mfa-failed').length, 0, 'two wrong codes: no notice yet');
  await post(a, '/auth/mfa/verify', { mfa_token: await mfaToken(a), code: wrongCode(a) });
  const notice = await s.smtp.waitFor(a.email, 'mfa-failed');
  assert.equal(notice.token, null, 'no credential in the notice');
  assert.equal(notice.links.length, 0);
  for (let i = 0; i < 3; i++) await post(a, '/api/account/reauth', { code: wrongCode(a) }, a.token);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(s.smtp.to(a.email, 'mfa-failed').length, 1, 'one notice an hour');
  const events = (await s.request('/api/account/activity', { bearer: a.token })).json.events;
  assert.equal(events.filter((e: { type: string }) => e.type === 'mfa_failed').length, 6, 'each wrong code is in the activity');
});

test('reset-password, change-password, logout-all and turning two-step off void pending mfa_tokens', async () => {
  const a = await twoStepAccount();
  const verifyWith = (token: string) => post(a, '/auth/mfa/verify', { mfa_token: token, code: freshCode(s, a.secret) });

  let pending = await mfaToken(a);
  const cp = await s.request('/auth/change-password', {
    method: 'POST',
    bearer: a.token,
    headers: a.headers,
    body: { current_password: PASSWORD, new_password: 'the second password' },
  });
  assert.equal(cp.status, 204, cp.text);
  assertProblem(await verifyWith(pending), 400, 'BAD_REQUEST', 'after change-password');

  const login = async (password: string) => {
    const r = await post(a, '/auth/login', { email: a.email, password });
    assert.equal(r.status, 200, r.text);
    return r.json.mfa_token as string;
  };
  pending = await login('the second password');
  assert.equal((await s.request('/auth/logout-all', { method: 'POST', bearer: a.token, headers: a.headers })).status, 204);
  assertProblem(await verifyWith(pending), 400, 'BAD_REQUEST', 'after logout-all');

  pending = await login('the second password');
  await post(a, '/auth/forgot-password', { email: a.email });
  const mail = await s.smtp.waitFor(a.email, 'reset-password');
  assert.equal((await post(a, '/auth/reset-password', { token: mail.token, new_password: 'the third password' })).status, 204);
  assertProblem(await verifyWith(pending), 400, 'BAD_REQUEST', 'after reset-password');

  // Two-step stays on after a reset of a verified account: the next sign-in still asks for it.
  const next = await login('the third password');
  const signedIn = await verifyWith(next);
  assert.equal(signedIn.status, 200, signedIn.text);
  pending = await login('the third password');
  const off = await s.request('/api/account/mfa/totp', {
    method: 'DELETE',
    bearer: signedIn.json.token,
    headers: a.headers,
    body: { current_password: 'the third password', code: freshCode(s, a.secret) },
  });
  assert.equal(off.status, 204, off.text);
  assertProblem(await post(a, '/auth/mfa/verify', { mfa_token: pending, code: a.recoveryCodes[0] }), 400, 'BAD_REQUEST', 'after two-step off');
});
