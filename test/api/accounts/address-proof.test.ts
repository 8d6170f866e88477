// Proving the address cleans the account (API.md section 7a). While the address is unverified,
// nothing that signs in can be added to it (TOTP, passkeys, linking from settings: 403). A
// verification or a reset link then removes what was attached while it was unproven: identities
// linked through a pending link, pending email changes and links, and every passkey, TOTP
// credential, recovery code, service token and pending mfa_token the account held before (an
// attacker who registered the victim's address first keeps nothing once the victim proves it). A
// reset of a verified account keeps them; a password change voids pending email changes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { hashToken } from '../../../src/infra/crypto/tokens.js';
import { useFakeProviders } from '../../support/fake-providers.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { PASSWORD, signedIn } from '../../support/accounts.js';
import { APP_URL, Browser, accountOf, appRedirect, fakeUser, roundTrip } from '../../support/sso-browser.js';
import { enableTwoStep } from '../../support/totp.js';

const fake = useFakeProviders();
const s = useServer(() => ({ env: { ...fake.env(), APP_URL } }));

/**
 * What an account from before these guards may hold: a passkey, TOTP with recovery codes and a
 * service token, added while its address was unverified (written straight to the database: the
 * API now refuses all of them).
 */
async function plantFactors(accountId: string): Promise<void> {
  const db = s.deps.db;
  await db.passkey.create({
    data: {
      accountId,
      credentialId: randomBytes(16).toString('base64url'),
      publicKey: randomBytes(77),
      transports: ['internal'],
      aaguid: '00000000-0000-0000-0000-000000000000',
      backupEligible: false,
      backedUp: false,
      name: "The squatter's key",
    },
  });
  await db.totpCredential.create({ data: { accountId, secret: s.deps.cipher.seal('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'), enabledAt: new Date() } });
  await db.recoveryCode.create({ data: { accountId, codeHash: hashToken(randomBytes(10).toString('hex')) } });
  await db.serviceToken.create({ data: { accountId, name: 'squatter', tokenHash: hashToken(randomBytes(20).toString('hex')) } });
}

/**
 * An unverified password account as a squatter leaves it: every factor refused by the API, GitHub
 * linked through a confirmed pending link, factors planted from before, a sign-in waiting for its
 * second step, an email change and a pending Google link.
 */
async function squatted() {
  const email = uniqueEmail('squat');
  const { id, token: bearer } = await signedIn(s, { email });
  const browser = new Browser();
  browser.cookies.set('session', bearer);
  const refused = [
    await browser.get(s, '/auth/oauth/github/start?intent=link'),
    await s.request('/api/account/mfa/totp/setup', { method: 'POST', bearer, body: { current_password: PASSWORD } }),
    await s.request('/api/account/passkeys/options', { method: 'POST', bearer }),
    await s.request('/api/account/passkeys', { method: 'POST', bearer, body: { response: {} } }),
  ];
  for (const r of refused) {
    assertProblem(r, 403, 'FORBIDDEN');
    assert.equal(r.json.detail, 'Verify your email address first.');
  }
  const github = await roundTrip(s, fake, 'github', fakeUser(email));
  const confirmed = await s.request('/auth/oauth/confirm-link', {
    method: 'POST',
    body: { token: appRedirect(github.callback).query.get('token'), password: PASSWORD },
  });
  assert.equal(confirmed.status, 200, confirmed.text);
  assert.equal((await accountOf(s, { bearer })).json.linked_providers.length, 1);

  await plantFactors(id);
  const login = await s.request('/auth/login', { method: 'POST', body: { email, password: PASSWORD } });
  assert.equal(login.json.mfa_required, true, login.text);
  const newEmail = uniqueEmail('moved');
  const change = await s.request('/auth/change-email', { method: 'POST', bearer, body: { current_password: PASSWORD, new_email: newEmail } });
  assert.equal(change.status, 202, change.text);
  const changeMail = await s.smtp.waitFor(newEmail, 'confirm-email-change');
  const pending = await roundTrip(s, fake, 'google', fakeUser(email));
  const { path, query } = appRedirect(pending.callback);
  assert.equal(path, '/link-account');
  return { id, email, bearer, mfaToken: login.json.mfa_token as string, changeToken: changeMail.token, linkToken: query.get('token')! };
}

async function assertCleaned(a: Awaited<ReturnType<typeof squatted>>, bearer: string, password = PASSWORD): Promise<void> {
  const me = await accountOf(s, { bearer });
  assert.equal(me.status, 200, me.text);
  assert.deepEqual(me.json.linked_providers, [], 'the identity linked while unverified is gone');
  assert.equal(me.json.email_verified, true);
  assert.deepEqual(me.json.mfa, { totp: false, recovery_codes_left: 0, passkeys: 0 }, 'the factors from before the proof are gone');
  assert.equal(await s.deps.db.serviceToken.count({ where: { accountId: a.id } }), 0, 'service tokens are gone');
  const verify = await s.request('/auth/mfa/verify', { method: 'POST', body: { mfa_token: a.mfaToken, code: '123456' } });
  assertProblem(verify, 400, 'BAD_REQUEST', 'the pending mfa_token');
  const change = await s.request('/auth/confirm-email-change', { method: 'POST', body: { token: a.changeToken } });
  assert.equal(change.status, 400, 'the pending email change is void');
  const link = await s.request('/auth/oauth/confirm-link', { method: 'POST', body: { token: a.linkToken, password: PASSWORD } });
  assert.equal(link.status, 400, 'the pending link is void');
  assert.equal((await accountOf(s, { bearer })).json.email, a.email);
  const events = (await s.request('/api/account/activity', { bearer })).json.events as { type: string; detail: Record<string, unknown> }[];
  const removals = events.filter((e) => e.type === 'passkey_removed' || e.type === 'mfa_disabled');
  assert.deepEqual(removals.map((e) => e.type).sort(), ['mfa_disabled', 'passkey_removed']);
  for (const e of removals) assert.equal(e.detail.reason, 'added before the address was verified');
  // Verified now: factors can be added.
  const setup = await s.request('/api/account/mfa/totp/setup', { method: 'POST', bearer, body: { current_password: password } });
  assert.equal(setup.status, 200, setup.text);
}

test('following the verification link removes every factor, identity and pending step from before it', async () => {
  const a = await squatted();
  const verify = await s.smtp.waitFor(a.email, 'verify-email');
  assert.equal((await s.request('/auth/verify-email', { method: 'POST', body: { token: verify.token } })).status, 200);
  await assertCleaned(a, a.bearer);
});

test('a password reset of an unverified account removes every factor, identity and pending step from before it', async () => {
  const a = await squatted();
  assert.equal((await s.request('/auth/forgot-password', { method: 'POST', body: { email: a.email } })).status, 204);
  const reset = await s.smtp.waitFor(a.email, 'reset-password');
  const r = await s.request('/auth/reset-password', { method: 'POST', body: { token: reset.token, new_password: 'a brand new password' } });
  assert.equal(r.status, 204, r.text);
  const login = await s.request('/auth/login', { method: 'POST', body: { email: a.email, password: 'a brand new password' } });
  assert.equal(login.status, 200);
  assert.ok(login.json.token, 'no second step any more: the squatter\'s TOTP is gone');
  await assertCleaned(a, login.json.token, 'a brand new password');
});

test('identities and factors added after the address was verified survive a later reset', async () => {
  const email = uniqueEmail('kept');
  const a = await signedIn(s, { email, verified: true });
  const bearer = a.token;
  const { recoveryCodes } = await enableTwoStep(s, a);
  const browser = new Browser();
  browser.cookies.set('session', bearer);
  const providerEmail = uniqueEmail('mine');
  await roundTrip(s, fake, 'github', fakeUser(providerEmail), { browser, intent: 'link' });
  await s.request('/auth/forgot-password', { method: 'POST', body: { email } });
  const reset = await s.smtp.waitFor(email, 'reset-password');
  assert.equal((await s.request('/auth/reset-password', { method: 'POST', body: { token: reset.token, new_password: 'another password' } })).status, 204);
  const login = await s.request('/auth/login', { method: 'POST', body: { email, password: 'another password' } });
  assert.equal(login.json.mfa_required, true, 'two-step still applies at the next sign-in');
  const second = await s.request('/auth/mfa/verify', { method: 'POST', body: { mfa_token: login.json.mfa_token, code: recoveryCodes[0] } });
  assert.equal(second.status, 200, second.text);
  const me = await accountOf(s, { bearer: second.json.token });
  assert.equal(me.json.mfa.totp, true);
  assert.deepEqual(
    me.json.linked_providers.map((p: { provider: string; email: string }) => [p.provider, p.email]),
    [['github', providerEmail]],
  );
});

test('changing the password voids a pending email change', async () => {
  const email = uniqueEmail('cp');
  const { token: bearer } = await signedIn(s, { email });
  const newEmail = uniqueEmail('cp.new');
  await s.request('/auth/change-email', { method: 'POST', bearer, body: { current_password: PASSWORD, new_email: newEmail } });
  const mail = await s.smtp.waitFor(newEmail, 'confirm-email-change');
  const cp = await s.request('/auth/change-password', {
    method: 'POST',
    bearer,
    body: { current_password: PASSWORD, new_password: 'the next password' },
  });
  assert.equal(cp.status, 204, cp.text);
  assert.equal((await s.request('/auth/confirm-email-change', { method: 'POST', body: { token: mail.token } })).status, 400);
  assert.equal((await accountOf(s, { bearer })).json.email, email);
});
