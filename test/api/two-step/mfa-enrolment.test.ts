// Turning two-step sign-in on and off over HTTP (API.md section 7): setup (password, the secret,
// its otpauth URL and QR code, sealed at rest, pending 10 minutes), confirm (the code, ten
// recovery codes once, stored hashed), regenerate, disable (password and a code), the account
// view's mfa summary, the notices, and the same on GraphQL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASSWORD, SESSION_TOKEN, fromIp, randomIp, signedIn } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { codeAt, enableTwoStep, freshCode } from '../../support/totp.js';

// Wrong passwords and codes here come from a network of their own (TRUST_PROXY), so they do not
// spend the suite's loopback budget of failures.
const s = useServer({ env: { SERVICE_NAME: 'Tunnel Test', TRUST_PROXY: 'true' } });
const headers = fromIp(randomIp());

const post = (path: string, bearer: string, body: unknown = {}) => s.request(path, { method: 'POST', bearer, body, headers });
const mfaOf = async (bearer: string) => (await s.request('/api/account', { bearer })).json.mfa;

test('setup answers the secret, an otpauth URL (issuer SERVICE_NAME, label the email) and an inline SVG QR code; the secret is stored sealed', async () => {
  const a = await signedIn(s, { verified: true });
  assertProblem(await post('/api/account/mfa/totp/setup', a.token, { current_password: 'wrong password' }), 401, 'UNAUTHENTICATED');
  assertProblem(await post('/api/account/mfa/totp/setup', a.token, {}), 401, 'UNAUTHENTICATED', 'password absent');
  assertProblem(await s.request('/api/account/mfa/totp/setup', { method: 'POST', body: { current_password: PASSWORD } }), 401, 'UNAUTHENTICATED');

  const r = await post('/api/account/mfa/totp/setup', a.token, { current_password: PASSWORD });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(Object.keys(r.json).sort(), ['otpauth_url', 'qr_svg', 'secret']);
  assert.match(r.json.secret, /^[A-Z2-7]{32}$/);
  const url = new URL(r.json.otpauth_url);
  assert.equal(url.protocol, 'otpauth:');
  assert.equal(url.host, 'totp');
  assert.equal(decodeURIComponent(url.pathname), `/Tunnel Test:${a.email}`, 'label: issuer and the account email');
  assert.equal(url.searchParams.get('issuer'), 'Tunnel Test');
  assert.equal(url.searchParams.get('secret'), r.json.secret);
  assert.equal(url.searchParams.get('algorithm'), 'SHA1');
  assert.equal(url.searchParams.get('digits'), '6');
  assert.equal(url.searchParams.get('period'), '30');
  assert.match(r.json.qr_svg, /^<svg[\s\S]*<\/svg>\s*$/);

  const row = await s.deps.db.totpCredential.findUniqueOrThrow({ where: { accountId: a.id } });
  assert.match(row.secret, /^enc:v1:/, 'sealed with AES-256-GCM');
  assert.ok(!row.secret.includes(r.json.secret));
  assert.equal(s.deps.cipher.open(row.secret), r.json.secret);
  assert.equal(row.enabledAt, null, 'pending until confirmed');
  assert.deepEqual(await mfaOf(a.token), { totp: false, recovery_codes_left: 0, passkeys: 0 });
});

test('confirm: a wrong code is 400, the right one turns two-step on and answers ten recovery codes stored only hashed; setup is then 409', async () => {
  const a = await signedIn(s, { verified: true });
  assertProblem(await post('/api/account/mfa/totp/confirm', a.token, { code: '123456' }), 400, 'BAD_REQUEST', 'no pending setup');
  const setup = await post('/api/account/mfa/totp/setup', a.token, { current_password: PASSWORD });
  const now = s.clock.now();
  const wrong = String((Number(codeAt(setup.json.secret, now)) + 1) % 1_000_000).padStart(6, '0');
  assertProblem(await post('/api/account/mfa/totp/confirm', a.token, { code: wrong }), 400, 'BAD_REQUEST');
  const r = await post('/api/account/mfa/totp/confirm', a.token, { code: codeAt(setup.json.secret, now) });
  assert.equal(r.status, 200, r.text);
  const codes: string[] = r.json.recovery_codes;
  assert.equal(codes.length, 10);
  assert.equal(new Set(codes).size, 10);
  for (const c of codes) assert.match(c, /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
  const stored = await s.deps.db.recoveryCode.findMany({ where: { accountId: a.id } });
  assert.equal(stored.length, 10);
  for (const row of stored) {
    assert.match(row.codeHash, /^[0-9a-f]{64}$/);
    assert.ok(!codes.some((c) => row.codeHash.includes(c.replace(/-/g, ''))));
  }
  assert.deepEqual(await mfaOf(a.token), { totp: true, recovery_codes_left: 10, passkeys: 0 });
  assertProblem(await post('/api/account/mfa/totp/setup', a.token, { current_password: PASSWORD }), 409, 'CONFLICT');
  assertProblem(await post('/api/account/mfa/totp/confirm', a.token, { code: freshCode(s, setup.json.secret) }), 400, 'BAD_REQUEST', 'nothing pending any more');

  const notice = await s.smtp.waitFor(a.email, 'mfa-enabled');
  assert.equal(notice.token, null, 'a notice carries no credential');
  assert.ok(!codes.some((c) => notice.raw.includes(c)) && !notice.raw.includes(setup.json.secret));
});

test('a setup left pending past 10 minutes can no longer be confirmed; a new setup replaces the pending one', async () => {
  const a = await signedIn(s, { verified: true });
  const first = await post('/api/account/mfa/totp/setup', a.token, { current_password: PASSWORD });
  s.clock.advance(10 * 60_000 + 1_000);
  assertProblem(await post('/api/account/mfa/totp/confirm', a.token, { code: codeAt(first.json.secret, s.clock.now()) }), 400, 'BAD_REQUEST');
  const second = await post('/api/account/mfa/totp/setup', a.token, { current_password: PASSWORD });
  assert.notEqual(second.json.secret, first.json.secret);
  assertProblem(
    await post('/api/account/mfa/totp/confirm', a.token, { code: codeAt(first.json.secret, s.clock.now()) }),
    400,
    'BAD_REQUEST',
    'the replaced secret',
  );
  const ok = await post('/api/account/mfa/totp/confirm', a.token, { code: codeAt(second.json.secret, s.clock.now()) });
  assert.equal(ok.status, 200, ok.text);
});

test('new recovery codes need the password and a second factor, which they use up; earlier codes die; the notice follows', async () => {
  const a = await signedIn(s, { verified: true });
  const regenerate = (body: unknown) => post('/api/account/mfa/recovery-codes', a.token, body);
  assertProblem(await regenerate({ current_password: PASSWORD, code: '123456' }), 400, 'BAD_REQUEST', 'not enabled');
  const { secret, recoveryCodes } = await enableTwoStep(s, a);
  assertProblem(await regenerate({ current_password: 'nope nope', code: freshCode(s, secret) }), 401, 'UNAUTHENTICATED');
  assertProblem(await regenerate({ code: freshCode(s, secret) }), 401, 'UNAUTHENTICATED', 'no password from an account that has one');
  // The password alone no longer makes codes that could turn two-step off (API.md 7a).
  assertProblem(await regenerate({ current_password: PASSWORD }), 400, 'BAD_REQUEST', 'no code');
  const wrong = String((Number(codeAt(secret, s.clock.now())) + 1) % 1_000_000).padStart(6, '0');
  assertProblem(await regenerate({ current_password: PASSWORD, code: wrong }), 400, 'BAD_REQUEST', 'a wrong code');
  assert.equal(s.smtp.to(a.email, 'recovery-codes-regenerated').length, 0);

  const r = await regenerate({ current_password: PASSWORD, code: recoveryCodes[0] });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.recovery_codes.length, 10);
  assert.ok(!r.json.recovery_codes.some((c: string) => recoveryCodes.includes(c)));
  const notice = await s.smtp.waitFor(a.email, 'recovery-codes-regenerated');
  assert.equal(notice.token, null, 'the notice carries no credential');
  // A current TOTP code does it too, once.
  const code = freshCode(s, secret);
  assert.equal((await regenerate({ current_password: PASSWORD, code })).status, 200);
  assertProblem(await regenerate({ current_password: PASSWORD, code }), 400, 'BAD_REQUEST', 'the same TOTP code again');
  const newest = (await regenerate({ current_password: PASSWORD, code: freshCode(s, secret) })).json.recovery_codes as string[];
  // An earlier code no longer turns two-step off; a new one does.
  const del = (c: string) => s.request('/api/account/mfa/totp', { method: 'DELETE', bearer: a.token, body: { current_password: PASSWORD, code: c }, headers });
  assertProblem(await del(r.json.recovery_codes[0]), 400, 'BAD_REQUEST', 'voided code');
  assert.deepEqual(await mfaOf(a.token), { totp: true, recovery_codes_left: 10, passkeys: 0 });
  const off = await del(newest[0]!);
  assert.equal(off.status, 204, off.text);
});

test('disable needs the password and a code (TOTP or recovery); a wrong code is 400; the mfa-disabled notice follows', async () => {
  const a = await signedIn(s, { verified: true });
  const { secret, recoveryCodes } = await enableTwoStep(s, a);
  const del = (body: unknown) => s.request('/api/account/mfa/totp', { method: 'DELETE', bearer: a.token, body, headers });
  assertProblem(await del({ current_password: 'wrong password', code: freshCode(s, secret) }), 401, 'UNAUTHENTICATED');
  assertProblem(await del({ code: freshCode(s, secret) }), 401, 'UNAUTHENTICATED', 'no password from an account that has one');
  const wrong = String((Number(codeAt(secret, s.clock.now())) + 1) % 1_000_000).padStart(6, '0');
  assertProblem(await del({ current_password: PASSWORD, code: wrong }), 400, 'BAD_REQUEST');
  assertProblem(await del({ current_password: PASSWORD, code: 'aaaa-bbbb-cccc-dddd' }), 400, 'BAD_REQUEST', 'unknown recovery code');
  assert.equal((await mfaOf(a.token)).totp, true);
  const r = await del({ current_password: PASSWORD, code: recoveryCodes[3]!.toUpperCase() });
  assert.equal(r.status, 204, r.text);
  assert.deepEqual(await mfaOf(a.token), { totp: false, recovery_codes_left: 0, passkeys: 0 });
  assert.equal(await s.deps.db.totpCredential.count({ where: { accountId: a.id } }), 0);
  assert.equal(await s.deps.db.recoveryCode.count({ where: { accountId: a.id } }), 0);
  const notice = await s.smtp.waitFor(a.email, 'mfa-disabled');
  assert.equal(notice.token, null);
  // Off again: login answers a session straight away.
  const login = await s.request('/auth/login', { method: 'POST', body: { email: a.email, password: PASSWORD } });
  assert.equal(login.status, 200);
  assert.match(login.json.token, SESSION_TOKEN);
  assertProblem(await del({ current_password: PASSWORD, code: freshCode(s, secret) }), 400, 'BAD_REQUEST', 'not on any more');
});

test('GraphQL: setupTotp, confirmTotp, me.mfa, regenerateRecoveryCodes and disableTotp answer as REST does', async () => {
  const a = await signedIn(s, { verified: true });
  const auth = { bearer: a.token, headers };
  const setup = await gql(s, 'mutation ($p: String) { setupTotp(currentPassword: $p) { secret otpauthUrl qrSvg } }', { p: PASSWORD }, auth);
  const secret: string = setup.json.data.setupTotp.secret;
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.equal(gqlCode(await gql(s, 'mutation { confirmTotp(code: "12345") { recoveryCodes } }', {}, auth)), 'BAD_REQUEST');
  const confirm = await gql(s, 'mutation ($c: String!) { confirmTotp(code: $c) { recoveryCodes } }', { c: codeAt(secret, s.clock.now()) }, auth);
  assert.equal(confirm.json.data.confirmTotp.recoveryCodes.length, 10);
  const me = await gql(s, '{ me { mfa { totp recoveryCodesLeft passkeys } } }', {}, auth);
  assert.deepEqual(me.json.data.me.mfa, { totp: true, recoveryCodesLeft: 10, passkeys: 0 });
  assert.equal(gqlCode(await gql(s, 'mutation { setupTotp(currentPassword: "correct horse battery") { secret } }', {}, auth)), 'CONFLICT');
  const noCode = await gql(s, 'mutation ($p: String!) { regenerateRecoveryCodes(currentPassword: $p) { recoveryCodes } }', { p: PASSWORD }, auth);
  assert.equal(gqlCode(noCode), 'BAD_REQUEST', 'the code is required');
  const regen = await gql(
    s,
    'mutation ($p: String!, $c: String!) { regenerateRecoveryCodes(currentPassword: $p, code: $c) { recoveryCodes } }',
    { p: PASSWORD, c: freshCode(s, secret) },
    auth,
  );
  assert.equal(regen.json.data.regenerateRecoveryCodes.recoveryCodes.length, 10, regen.text);
  const wrongPw = await gql(s, 'mutation ($c: String!) { disableTotp(currentPassword: "not it at all", code: $c) }', { c: freshCode(s, secret) }, auth);
  assert.equal(gqlCode(wrongPw), 'UNAUTHENTICATED');
  const off = await gql(s, 'mutation ($p: String!, $c: String!) { disableTotp(currentPassword: $p, code: $c) }', { p: PASSWORD, c: freshCode(s, secret) }, auth);
  assert.equal(off.json.data?.disableTotp, true, off.text);
  assert.equal(gqlCode(await gql(s, 'mutation { setupTotp { secret } }')), 'UNAUTHENTICATED', 'signed out');
});
