// Signing in with two-step on (API.md section 7): the password alone yields only an mfa_token
// (no session, cookie, last login or alert), POST /auth/mfa/verify then signs in exactly like a
// login; codes work once and within one step of skew; recovery codes once each; the token lives
// 5 minutes, works once and dies after 5 wrong codes; wrong codes count against the sign-in
// limits; the session list says how each session was made; GraphQL answers the same.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASSWORD, SESSION_TOKEN, fromIp, randomIp, signedIn, type SignedIn } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { sessionCookie } from '../../support/http.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { codeAt, enableTwoStep, freshCode, type TwoStep } from '../../support/totp.js';

const s = useServer({ env: { TRUST_PROXY: 'true' } });

async function twoStepAccount(): Promise<SignedIn & TwoStep & { ip: string }> {
  const ip = randomIp();
  const a = await signedIn(s, { headers: fromIp(ip), verified: true });
  return { ...a, ...(await enableTwoStep(s, a)), ip };
}

const firstStep = (a: { email: string; password: string }, ip: string) =>
  s.request('/auth/login', { method: 'POST', body: { email: a.email, password: a.password }, headers: fromIp(ip) });

async function mfaToken(a: { email: string; password: string }, ip: string): Promise<string> {
  const r = await firstStep(a, ip);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.mfa_required, true);
  return r.json.mfa_token;
}

const verify = (mfa_token: string, code: string, ip: string) =>
  s.request('/auth/mfa/verify', { method: 'POST', body: { mfa_token, code }, headers: fromIp(ip) });

const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

test('with two-step on, the password yields only {mfa_required, mfa_token, expires_at}: no session, cookie, last login or alert', async () => {
  const a = await twoStepAccount();
  const sessionsBefore = await s.deps.db.session.count({ where: { accountId: a.id } });
  const lastLoginBefore = (await s.deps.db.account.findUniqueOrThrow({ where: { id: a.id } })).lastLoginAt;
  const newNetwork = randomIp();
  const r = await firstStep(a, newNetwork);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(Object.keys(r.json).sort(), ['expires_at', 'mfa_required', 'mfa_token']);
  assert.equal(r.json.mfa_required, true);
  assert.match(r.json.mfa_token, /^[a-z2-7]{32}$/);
  assert.ok(Math.abs(Date.parse(r.json.expires_at) - (s.clock.now().getTime() + 5 * 60_000)) < 5_000, r.json.expires_at);
  assert.equal(r.headers['set-cookie'], undefined, 'no cookie at all');
  assert.equal(await s.deps.db.session.count({ where: { accountId: a.id } }), sessionsBefore, 'no session');
  const account = await s.deps.db.account.findUniqueOrThrow({ where: { id: a.id } });
  assert.deepEqual(account.lastLoginAt, lastLoginBefore, 'no last login');
  assert.equal(await s.deps.db.outboxEmail.count({ where: { accountId: a.id, kind: 'login-alert' } }), 0, 'no alert queued');
  assert.equal(await s.deps.db.knownNetwork.count({ where: { accountId: a.id, network: `${newNetwork.split('.').slice(0, 3).join('.')}.0/24` } }), 0);
  assert.equal(s.smtp.to(a.email, 'login-alert').length, 0);
  assert.equal(await s.deps.db.mfaChallenge.count({ where: { tokenHash: r.json.mfa_token } }), 0, 'the token is stored hashed');
  // A wrong password still answers as before.
  assertProblem(await firstStep({ email: a.email, password: 'wrong password' }, newNetwork), 401, 'UNAUTHENTICATED');

  // The second step signs in exactly like a login: token, cookie, last login, new-network alert.
  const v = await verify(r.json.mfa_token, freshCode(s, a.secret), newNetwork);
  assert.equal(v.status, 200, v.text);
  assert.deepEqual(Object.keys(v.json).sort(), ['email_verified', 'expires_at', 'token']);
  assert.equal(sessionCookie(v), v.json.token);
  assert.ok(Math.abs(Date.parse(v.json.expires_at) - (s.clock.now().getTime() + 30 * 24 * 3600_000)) < 60_000);
  const me = await s.request('/api/account', { bearer: v.json.token });
  assert.equal(me.status, 200);
  assert.equal(me.json.last_login.ip, `${newNetwork.split('.').slice(0, 3).join('.')}.x`);
  await s.smtp.waitFor(a.email, 'login-alert');

  const list = await s.request('/api/sessions', { bearer: v.json.token });
  const current = list.json.sessions.find((x: { current: boolean }) => x.current);
  assert.equal(current.method, 'password');
  assert.equal(current.second_step, true);
  const first = list.json.sessions.find((x: { current: boolean }) => !x.current);
  assert.equal(first.second_step, false, 'the session made before two-step was on');
});

test('a TOTP code works once and within one step of skew; older, later and wrong codes are 401', async () => {
  const a = await twoStepAccount();
  const code = freshCode(s, a.secret);
  assert.equal((await verify(await mfaToken(a, a.ip), code, a.ip)).status, 200);
  assertProblem(await verify(await mfaToken(a, a.ip), code, a.ip), 401, 'UNAUTHENTICATED', 'replayed code');

  s.clock.advance(30_000);
  const now = s.clock.now();
  assertProblem(await verify(await mfaToken(a, a.ip), codeAt(a.secret, new Date(now.getTime() - 60_000)), a.ip), 401, 'UNAUTHENTICATED', 'two steps old');
  assertProblem(await verify(await mfaToken(a, a.ip), codeAt(a.secret, new Date(now.getTime() + 60_000)), a.ip), 401, 'UNAUTHENTICATED', 'two steps ahead');
  const current = codeAt(a.secret, now);
  assertProblem(await verify(await mfaToken(a, a.ip), otherCode(current), a.ip), 401, 'UNAUTHENTICATED', 'wrong code');
  assertProblem(await verify(await mfaToken(a, a.ip), 'not a code', a.ip), 401, 'UNAUTHENTICATED', 'garbage');
  // One step ahead (a fast phone clock) passes; afterwards the current step's code is older than the last used.
  assert.equal((await verify(await mfaToken(a, a.ip), codeAt(a.secret, new Date(now.getTime() + 30_000)), a.ip)).status, 200);
  assertProblem(await verify(await mfaToken(a, a.ip), current, a.ip), 401, 'UNAUTHENTICATED', 'older than the last used step');
  // One step behind (a slow phone clock) passes too, once it is later than the last used step.
  s.clock.advance(90_000);
  assert.equal((await verify(await mfaToken(a, a.ip), codeAt(a.secret, new Date(s.clock.now().getTime() - 30_000)), a.ip)).status, 200);
});

test('two requests with the same code: exactly one signs in', async () => {
  const a = await twoStepAccount();
  const [t1, t2] = [await mfaToken(a, a.ip), await mfaToken(a, a.ip)];
  const code = freshCode(s, a.secret);
  const answers = await Promise.all([verify(t1, code, a.ip), verify(t2, code, a.ip)]);
  assert.deepEqual(answers.map((r) => r.status).sort(), [200, 401]);
});

test('a recovery code signs in once (any case, with or without hyphens); used again it is 401', async () => {
  const a = await twoStepAccount();
  const code = a.recoveryCodes[5]!;
  const ok = await verify(await mfaToken(a, a.ip), code.replace(/-/g, '').toUpperCase(), a.ip);
  assert.equal(ok.status, 200, ok.text);
  assert.equal((await s.request('/api/account', { bearer: ok.json.token })).json.mfa.recovery_codes_left, 9);
  assertProblem(await verify(await mfaToken(a, a.ip), code, a.ip), 401, 'UNAUTHENTICATED', 'used twice');
  const list = await s.request('/api/sessions', { bearer: ok.json.token });
  assert.equal(list.json.sessions.find((x: { current: boolean }) => x.current).second_step, true);
});

test('mfa_token: single use, 5 minutes, unknown or malformed ones are 400', async () => {
  const a = await twoStepAccount();
  const token = await mfaToken(a, a.ip);
  assert.equal((await verify(token, freshCode(s, a.secret), a.ip)).status, 200);
  assertProblem(await verify(token, freshCode(s, a.secret), a.ip), 400, 'BAD_REQUEST', 'reused');
  const late = await mfaToken(a, a.ip);
  s.clock.advance(5 * 60_000 + 1_000);
  assertProblem(await verify(late, codeAt(a.secret, s.clock.now()), a.ip), 400, 'BAD_REQUEST', 'expired');
  assertProblem(await verify('a'.repeat(32), codeAt(a.secret, s.clock.now()), a.ip), 400, 'BAD_REQUEST', 'unknown');
  assertProblem(await verify('short', codeAt(a.secret, s.clock.now()), a.ip), 400, 'BAD_REQUEST', 'malformed');
  assertProblem(await s.request('/auth/mfa/verify', { method: 'POST', body: { mfa_token: late } }), 400, 'BAD_REQUEST', 'code missing');
});

test('5 wrong codes void the mfa_token: the next attempt is 429 even with the right code; parallel guesses are counted first', async () => {
  const a = await twoStepAccount();
  const token = await mfaToken(a, a.ip);
  const wrong = otherCode(codeAt(a.secret, s.clock.now()));
  for (let i = 0; i < 5; i++) assertProblem(await verify(token, wrong, a.ip), 401, 'UNAUTHENTICATED', `wrong #${i + 1}`);
  assertProblem(await verify(token, codeAt(a.secret, s.clock.now()), a.ip), 429, 'RATE_LIMITED', 'void');
  assert.equal(await s.deps.db.session.count({ where: { accountId: a.id, secondStep: true } }), 0);

  // Ten at once on a fresh token: at most five are checked.
  const b = await twoStepAccount();
  const parallel = await mfaToken(b, b.ip);
  const bad = otherCode(codeAt(b.secret, s.clock.now()));
  const answers = await Promise.all(Array.from({ length: 10 }, () => verify(parallel, bad, b.ip)));
  const statuses = answers.map((r) => r.status);
  assert.equal(statuses.filter((x) => x === 401).length, 5, statuses.join(','));
  assert.equal(statuses.filter((x) => x === 429).length, 5, statuses.join(','));
});

test("wrong codes count against the account's sign-in limits", async () => {
  const a = await twoStepAccount();
  // Three first steps (each success clears the budget), then 10 wrong codes: the account's
  // budget on its own network (10 per 15 minutes) is spent by codes alone.
  const tokens = [await mfaToken(a, a.ip), await mfaToken(a, a.ip), await mfaToken(a, a.ip)];
  const wrong = otherCode(codeAt(a.secret, s.clock.now()));
  for (const t of tokens.slice(0, 2)) for (let i = 0; i < 5; i++) assertProblem(await verify(t, wrong, a.ip), 401, 'UNAUTHENTICATED');
  assertProblem(await verify(tokens[2]!, codeAt(a.secret, s.clock.now()), a.ip), 429, 'RATE_LIMITED', 'a right code past the limit');
  assertProblem(await firstStep(a, a.ip), 429, 'RATE_LIMITED', 'the right password past the limit');
  const events = await s.deps.db.securityEvent.count({ where: { accountId: a.id, type: 'mfa_failed' } });
  assert.equal(events, 10, 'each wrong code is in the security activity');
});

test('GraphQL: login answers mfaRequired with an mfaToken and no token; verifyMfa signs in and sets the cookie', async () => {
  const a = await twoStepAccount();
  const login = await gql(
    s,
    'mutation ($e: String!, $p: String!) { login(email: $e, password: $p) { token emailVerified expiresAt mfaRequired mfaToken } }',
    { e: a.email, p: PASSWORD },
    { headers: fromIp(a.ip) },
  );
  const payload = login.json.data.login;
  assert.equal(payload.mfaRequired, true);
  assert.equal(payload.token, null);
  assert.equal(payload.emailVerified, null);
  assert.match(payload.mfaToken, /^[a-z2-7]{32}$/);
  assert.equal(sessionCookie(login), null);
  const wrong = await gql(s, 'mutation ($t: String!) { verifyMfa(mfaToken: $t, code: "000000x") { token } }', { t: payload.mfaToken }, { headers: fromIp(a.ip) });
  assert.equal(gqlCode(wrong), 'UNAUTHENTICATED');
  const ok = await gql(
    s,
    'mutation ($t: String!, $c: String!) { verifyMfa(mfaToken: $t, code: $c) { token emailVerified expiresAt mfaRequired mfaToken } }',
    { t: payload.mfaToken, c: freshCode(s, a.secret) },
    { headers: fromIp(a.ip) },
  );
  const signed = ok.json.data.verifyMfa;
  assert.equal(signed.mfaRequired, false);
  assert.equal(signed.mfaToken, null);
  assert.equal(sessionCookie(ok), signed.token);
  const sessions = await gql(s, '{ me { sessions { method secondStep current } } }', {}, { bearer: signed.token });
  assert.deepEqual(
    sessions.json.data.me.sessions.find((x: { current: boolean }) => x.current),
    { method: 'password', secondStep: true, current: true },
  );
  // An account without two-step: the existing selection still answers a session.
  const plain = await signedIn(s, { headers: fromIp(randomIp()), verified: true });
  const old = await gql(s, 'mutation ($e: String!, $p: String!) { login(email: $e, password: $p) { token emailVerified expiresAt } }', {
    e: plain.email,
    p: PASSWORD,
  });
  assert.match(old.json.data.login.token, SESSION_TOKEN);
});
