// The security activity of sign-ins and sign-in methods (API.md section 10): failed passwords,
// two-step on and off, wrong and right second steps, recovery codes, providers linked and
// unlinked — each exactly once, in order, with the masked IP — and their notices once each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASSWORD, fromIp, signedIn } from '../../support/accounts.js';
import { useFakeProviders } from '../../support/fake-providers.js';
import { useServer } from '../../support/server.js';
import { APP_URL, Browser, fakeUser, roundTrip } from '../../support/sso-browser.js';
import { enableTwoStep, freshCode } from '../../support/totp.js';
import { uniqueEmail } from '../../support/server.js';

const fake = useFakeProviders();
const s = useServer(() => ({ env: { ...fake.env(), APP_URL, TRUST_PROXY: 'true' } }));

const IP = '10.44.55.66';
const headers = { ...fromIp(IP), 'user-agent': 'SignInActivity/2.0' };
const post = (path: string, body: unknown, bearer?: string) =>
  s.request(path, { method: 'POST', body, headers, ...(bearer ? { bearer } : {}) });

interface Event {
  type: string;
  ip: string;
  user_agent: string;
  detail: Record<string, unknown>;
}

test('sign-in, two-step and provider events: each once, in order, masked, with their notices', async () => {
  const a = await signedIn(s, { headers, verified: true });

  assert.equal((await post('/auth/login', { email: a.email, password: 'not the password' })).status, 401);
  const { secret, recoveryCodes } = await enableTwoStep(s, a);

  const first = await post('/auth/login', { email: a.email, password: PASSWORD });
  assert.equal(first.status, 200, first.text);
  assert.equal(first.json.mfa_required, true);
  assert.equal((await post('/auth/mfa/verify', { mfa_token: first.json.mfa_token, code: 'abcdef' })).status, 401);
  const verified = await post('/auth/mfa/verify', { mfa_token: first.json.mfa_token, code: freshCode(s, secret) });
  assert.equal(verified.status, 200, verified.text);
  const token: string = verified.json.token;

  const regen = await post('/api/account/mfa/recovery-codes', { current_password: PASSWORD, code: freshCode(s, secret) }, token);
  assert.equal(regen.status, 200, regen.text);
  assert.notDeepEqual(regen.json.recovery_codes, recoveryCodes);
  const off = await s.request('/api/account/mfa/totp', {
    method: 'DELETE',
    body: { current_password: PASSWORD, code: freshCode(s, secret) },
    bearer: token,
    headers,
  });
  assert.equal(off.status, 204, off.text);

  const browser = new Browser();
  browser.cookies.set('session', token);
  const providerEmail = uniqueEmail('act.gh');
  const trip = await roundTrip(s, fake, 'github', fakeUser(providerEmail), { browser, intent: 'link' });
  assert.equal(trip.callback.status, 302);
  const unlink = await s.request('/api/account/sso/github', { method: 'DELETE', bearer: token, headers });
  assert.equal(unlink.status, 204, unlink.text);

  await s.deps.background.drain();
  const r = await s.request('/api/account/activity?limit=100', { bearer: token });
  assert.equal(r.status, 200, r.text);
  const events: Event[] = r.json.events;
  assert.deepEqual(
    events.map((e) => e.type).reverse(),
    [
      'sign_in', // signedIn()
      'sign_in_failed',
      'mfa_enabled',
      'mfa_failed',
      'sign_in',
      'recovery_codes_regenerated',
      'mfa_disabled',
      'provider_linked',
      'provider_unlinked',
    ],
  );
  const [firstSignIn, failed, , mfaFailed, secondSignIn] = [...events].reverse();
  assert.deepEqual(firstSignIn!.detail, { method: 'password', second_step: false });
  assert.deepEqual(failed!.detail, { method: 'password' });
  assert.equal(mfaFailed!.detail.method, 'password');
  assert.deepEqual(secondSignIn!.detail, { method: 'password', second_step: true });
  assert.deepEqual(events.find((e) => e.type === 'provider_linked')!.detail, { provider: 'github', email: providerEmail });
  assert.deepEqual(events.find((e) => e.type === 'provider_unlinked')!.detail, { provider: 'github' });
  assert.equal(events.find((e) => e.type === 'mfa_enabled')!.ip, '127.0.0.x');
  // Two-step was turned on by a helper and the link came through a browser, both without the
  // test's headers (they show loopback); every other event names the test's client.
  for (const e of events.filter((x) => x.type !== 'provider_linked' && x.type !== 'mfa_enabled')) {
    assert.equal(e.ip, '10.44.55.x', e.type);
    assert.equal(e.user_agent, 'SignInActivity/2.0', e.type);
  }

  // Notices, once each, none with a link or a credential.
  for (const kind of ['mfa-enabled', 'recovery-codes-regenerated', 'mfa-disabled', 'provider-linked']) {
    const mail = await s.smtp.waitFor(a.email, kind);
    assert.equal(mail.token, null, kind);
    assert.equal(mail.links.length, 0, kind);
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (const kind of ['mfa-enabled', 'recovery-codes-regenerated', 'mfa-disabled', 'provider-linked']) assert.equal(s.smtp.to(a.email, kind).length, 1, kind);
});

test('a refused attempt (429) is not written; an unknown email writes nothing anywhere', async () => {
  const a = await signedIn(s, { headers, verified: true });
  await s.deps.background.drain();
  const before = await s.deps.db.securityEvent.count();
  assert.equal((await post('/auth/login', { email: uniqueEmail('nobody'), password: 'whatever it is' })).status, 401);
  await s.deps.background.drain();
  assert.equal(await s.deps.db.securityEvent.count(), before, 'nothing for an unknown address');
  let refused = 0;
  for (let i = 0; i < 12; i++) {
    const r = await post('/auth/login', { email: a.email, password: `wrong ${i} password` });
    if (r.status === 429) refused++;
  }
  assert.ok(refused >= 1, 'the account budget ran out');
  await s.deps.background.drain(); // failed sign-ins are written after the reply
  const failed = await s.deps.db.securityEvent.count({ where: { accountId: a.id, type: 'sign_in_failed' } });
  assert.equal(failed, 12 - refused, 'one event per checked password, none per refusal');
});

test('confirming a pending link with the password records provider_linked once and sends the notice', async () => {
  const a = await signedIn(s, { headers, verified: true });
  const trip = await roundTrip(s, fake, 'google', fakeUser(a.email));
  const location = new URL(String(trip.callback.headers.location));
  assert.equal(location.pathname, '/link-account');
  const r = await post('/auth/oauth/confirm-link', { token: location.searchParams.get('token'), password: PASSWORD });
  assert.equal(r.status, 200, r.text);
  await s.deps.background.drain();
  const events = await s.deps.db.securityEvent.findMany({ where: { accountId: a.id }, orderBy: { seq: 'asc' } });
  assert.deepEqual(
    events.map((e) => [e.type, e.detail]),
    [
      ['sign_in', { method: 'password', second_step: false }],
      ['provider_linked', { provider: 'google', email: a.email }],
      ['sign_in', { method: 'google', second_step: false }],
    ],
  );
  await s.smtp.waitFor(a.email, 'provider-linked');
});
