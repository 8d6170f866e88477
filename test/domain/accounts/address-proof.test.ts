// Proving the address cleans the account: a verification or a reset link removes the identities
// linked while the address was unverified and voids pending email changes and pending links; a
// password change voids pending email changes. (An attacker who registered the victim's address
// first keeps nothing once the victim proves it.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useFakeProviders } from '../../support/fake-providers.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { PASSWORD, signedIn } from '../../support/accounts.js';
import { APP_URL, Browser, accountOf, appRedirect, fakeUser, roundTrip } from '../../support/sso-browser.js';

const fake = useFakeProviders();
const s = useServer(() => ({ env: { ...fake.env(), APP_URL } }));

/** An unverified password account with GitHub linked from settings, an email change and a pending Google link waiting. */
async function squatted() {
  const email = uniqueEmail('squat');
  const { token: bearer } = await signedIn(s, { email });
  const browser = new Browser();
  browser.cookies.set('session', bearer);
  const linked = await roundTrip(s, fake, 'github', fakeUser(uniqueEmail('attacker')), { browser, intent: 'link' });
  assert.equal(appRedirect(linked.callback).query.get('sso_linked'), 'github');
  const newEmail = uniqueEmail('moved');
  const change = await s.request('/auth/change-email', {
    method: 'POST',
    bearer,
    body: { current_password: PASSWORD, new_email: newEmail },
  });
  assert.equal(change.status, 202, change.text);
  const changeMail = await s.smtp.waitFor(newEmail, 'confirm-email-change');
  const pending = await roundTrip(s, fake, 'google', fakeUser(email));
  const { path, query } = appRedirect(pending.callback);
  assert.equal(path, '/link-account');
  return { email, bearer, changeToken: changeMail.token, linkToken: query.get('token')! };
}

async function assertCleaned(a: Awaited<ReturnType<typeof squatted>>, bearer: string): Promise<void> {
  const me = await accountOf(s, { bearer });
  assert.equal(me.status, 200, me.text);
  assert.deepEqual(me.json.linked_providers, [], 'the identity linked while unverified is gone');
  assert.equal(me.json.email_verified, true);
  const change = await s.request('/auth/confirm-email-change', { method: 'POST', body: { token: a.changeToken } });
  assert.equal(change.status, 400, 'the pending email change is void');
  const link = await s.request('/auth/oauth/confirm-link', { method: 'POST', body: { token: a.linkToken, password: PASSWORD } });
  assert.equal(link.status, 400, 'the pending link is void');
  assert.equal((await accountOf(s, { bearer })).json.email, a.email);
}

test('following the verification link removes identities linked while unverified and voids pending changes and links', async () => {
  const a = await squatted();
  const verify = await s.smtp.waitFor(a.email, 'verify-email');
  assert.equal((await s.request('/auth/verify-email', { method: 'POST', body: { token: verify.token } })).status, 200);
  await assertCleaned(a, a.bearer);
});

test('a password reset removes identities linked while unverified and voids pending changes and links', async () => {
  const a = await squatted();
  assert.equal((await s.request('/auth/forgot-password', { method: 'POST', body: { email: a.email } })).status, 204);
  const reset = await s.smtp.waitFor(a.email, 'reset-password');
  const r = await s.request('/auth/reset-password', { method: 'POST', body: { token: reset.token, new_password: 'a brand new password' } });
  assert.equal(r.status, 204, r.text);
  const login = await s.request('/auth/login', { method: 'POST', body: { email: a.email, password: 'a brand new password' } });
  assert.equal(login.status, 200);
  await assertCleaned(a, login.json.token);
});

test('an identity linked after the address was verified survives a later reset', async () => {
  const email = uniqueEmail('kept');
  const { token: bearer } = await signedIn(s, { email });
  const verify = await s.smtp.waitFor(email, 'verify-email');
  assert.equal((await s.request('/auth/verify-email', { method: 'POST', body: { token: verify.token } })).status, 200);
  const browser = new Browser();
  browser.cookies.set('session', bearer);
  const providerEmail = uniqueEmail('mine');
  await roundTrip(s, fake, 'github', fakeUser(providerEmail), { browser, intent: 'link' });
  await s.request('/auth/forgot-password', { method: 'POST', body: { email } });
  const reset = await s.smtp.waitFor(email, 'reset-password');
  assert.equal((await s.request('/auth/reset-password', { method: 'POST', body: { token: reset.token, new_password: 'another password' } })).status, 204);
  const login = await s.request('/auth/login', { method: 'POST', body: { email, password: 'another password' } });
  const me = await accountOf(s, { bearer: login.json.token });
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
