// Recent authentication (API.md section 7a): a session counts as recently authenticated for
// REAUTH_WINDOW_SECONDS after its sign-in or a re-authentication (POST /api/account/reauth with a
// password, a code or a passkey; a linked provider for an account with neither). Adding a passkey,
// linking a provider and new recovery codes need it, else 403 REAUTH_REQUIRED; GET /api/account
// and `me` say until when it lasts. A stolen session alone can no longer plant a lasting way in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASSWORD, fromIp, randomIp, signedIn, type SignedIn } from '../../support/accounts.js';
import { useFakeProviders } from '../../support/fake-providers.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { startTestServer, uniqueEmail, useServer } from '../../support/server.js';
import { APP_URL, Browser, accountOf, appRedirect, fakeUser, roundTrip } from '../../support/sso-browser.js';
import { codeAt, enableTwoStep, freshCode } from '../../support/totp.js';
import { SoftwareAuthenticator } from '../../support/webauthn-authenticator.js';

const WINDOW_MS = 600_000;
const fake = useFakeProviders();
const s = useServer(() => ({ env: { ...fake.env(), APP_URL, TRUST_PROXY: 'true' } }));

/** A verified account signed in from its own random network (keeps per-network limits apart). */
async function account(): Promise<SignedIn & { headers: Record<string, string> }> {
  const headers = fromIp(randomIp());
  return { ...(await signedIn(s, { headers, verified: true })), headers };
}

const reauth = (a: { token: string; headers: Record<string, string> }, body: unknown) =>
  s.request('/api/account/reauth', { method: 'POST', bearer: a.token, body, headers: a.headers });
const passkeyOptions = (a: { token: string }) => s.request('/api/account/passkeys/options', { method: 'POST', bearer: a.token });
const until = async (a: { token: string }) => (await s.request('/api/account', { bearer: a.token })).json.reauthenticated_until as string | null;

/** Within a few seconds of `expected` (the test clock runs with real time between requests). */
function near(actual: string | null, expected: number, what?: string): void {
  assert.ok(actual !== null && Math.abs(Date.parse(actual) - expected) < 5000, `${what ?? 'time'}: ${actual} vs ${new Date(expected).toISOString()}`);
}

/** The window after the sign-in has passed (the server's clock moves; nothing sleeps). */
const letWindowPass = () => s.clock.advance(WINDOW_MS + 1000);

async function registerPasskey(a: { token: string }, authenticator: SoftwareAuthenticator): Promise<void> {
  const options = await passkeyOptions(a);
  assert.equal(options.status, 200, options.text);
  const added = await s.request('/api/account/passkeys', { method: 'POST', bearer: a.token, body: { response: authenticator.register(options.json) } });
  assert.equal(added.status, 201, added.text);
}

async function assertion(authenticator: SoftwareAuthenticator): Promise<{ challenge_id: string; response: unknown }> {
  const options = await s.request('/auth/passkey/options', { method: 'POST' });
  assert.equal(options.status, 200, options.text);
  return { challenge_id: options.json.challenge_id, response: authenticator.authenticate(options.json.options) };
}

test('a sign-in is recent for 10 minutes; after that, adding a passkey, linking and new recovery codes answer 403 REAUTH_REQUIRED', async () => {
  const a = await account();
  const { secret } = await enableTwoStep(s, a);
  const signedInAt = Date.parse((await s.request('/api/account', { bearer: a.token })).json.last_login.at);
  assert.equal(Date.parse((await until(a))!), signedInAt + WINDOW_MS);
  assert.equal((await passkeyOptions(a)).status, 200, 'recent: allowed');

  letWindowPass();
  assert.equal(await until(a), null);
  assertProblem(await passkeyOptions(a), 403, 'REAUTH_REQUIRED', 'passkey options');
  const add = await s.request('/api/account/passkeys', { method: 'POST', bearer: a.token, body: { response: {} } });
  assertProblem(add, 403, 'REAUTH_REQUIRED', 'passkey add');
  const regen = await s.request('/api/account/mfa/recovery-codes', {
    method: 'POST',
    bearer: a.token,
    body: { current_password: PASSWORD, code: freshCode(s, secret) },
  });
  assertProblem(regen, 403, 'REAUTH_REQUIRED', 'recovery codes');
  const browser = new Browser();
  browser.cookies.set('session', a.token);
  assertProblem(await browser.get(s, '/auth/oauth/github/start?intent=link'), 403, 'REAUTH_REQUIRED', 'intent=link');
  // Nothing else is held back: the session still reads and changes ordinary things.
  assert.equal((await s.request('/api/sessions', { bearer: a.token })).status, 200);
  const gq = await gql(s, 'mutation { passkeyRegistrationOptions }', {}, { bearer: a.token });
  assert.equal(gqlCode(gq), 'REAUTH_REQUIRED');
});

test('reauth with the password: 401 when wrong (under the sign-in limits), 204 when right; the window starts again and is recorded', async () => {
  const a = await account();
  letWindowPass();
  assertProblem(await reauth(a, { password: 'not my password' }), 401, 'UNAUTHENTICATED');
  assert.equal(await until(a), null);
  const ok = await reauth(a, { password: PASSWORD });
  assert.equal(ok.status, 204, ok.text);
  near(await until(a), s.clock.now().getTime() + WINDOW_MS, 'the cached session shows the new window at once');
  assert.equal((await passkeyOptions(a)).status, 200);
  const activity = await s.request('/api/account/activity', { bearer: a.token });
  const event = activity.json.events[0];
  assert.equal(event.type, 'reauthenticated');
  assert.deepEqual(event.detail, { method: 'password' });
  assert.match(event.ip, /\.x$/);
  // The password is guessed under the sign-in limits: a stolen session cannot try forever.
  const b = await account();
  let limited = 0;
  for (let i = 0; i < 12; i++) if ((await reauth(b, { password: `guess number ${i}` })).status === 429) limited++;
  assert.ok(limited >= 1, 'past the limit, 429');
  assertProblem(await reauth(b, { password: 'guess number 99' }), 429, 'RATE_LIMITED');
});

test('reauth with a code: a TOTP code works once, a recovery code is used up; a wrong one is 401', async () => {
  const a = await account();
  const { secret, recoveryCodes } = await enableTwoStep(s, a);
  letWindowPass();
  const wrong = String((Number(codeAt(secret, s.clock.now())) + 1) % 1_000_000).padStart(6, '0');
  assertProblem(await reauth(a, { code: wrong }), 401, 'UNAUTHENTICATED');
  const code = freshCode(s, secret);
  assert.equal((await reauth(a, { code })).status, 204);
  assertProblem(await reauth(a, { code }), 401, 'UNAUTHENTICATED', 'the same TOTP code twice');
  assert.equal((await s.request('/api/account', { bearer: a.token })).json.mfa.recovery_codes_left, 10);
  letWindowPass();
  assert.equal((await reauth(a, { code: recoveryCodes[0] })).status, 204);
  assert.equal((await s.request('/api/account', { bearer: a.token })).json.mfa.recovery_codes_left, 9, 'the recovery code is used');
  assertProblem(await reauth(a, { code: recoveryCodes[0] }), 401, 'UNAUTHENTICATED', 'a used recovery code');
  assert.ok(await until(a));
  const methods = (await s.request('/api/account/activity', { bearer: a.token })).json.events
    .filter((e: { type: string }) => e.type === 'reauthenticated')
    .map((e: { detail: { method: string } }) => e.detail.method);
  assert.deepEqual(methods, ['recovery_code', 'totp']);
});

test('reauth with a passkey assertion of this account; another account\'s passkey is 401', async () => {
  const a = await account();
  const mine = new SoftwareAuthenticator(APP_URL);
  await registerPasskey(a, mine);
  const b = await account();
  const theirs = new SoftwareAuthenticator(APP_URL);
  await registerPasskey(b, theirs);
  letWindowPass();
  assertProblem(await reauth(a, await assertion(theirs)), 401, 'UNAUTHENTICATED', "another account's passkey");
  assert.equal(await until(a), null);
  const ok = await reauth(a, await assertion(mine));
  assert.equal(ok.status, 204, ok.text);
  assert.ok(await until(a));
  const used = await assertion(mine);
  assert.equal((await reauth(a, used)).status, 204);
  assert.equal((await reauth(a, used)).status, 400, 'a challenge works once');
});

test('reauth takes exactly one proof', async () => {
  const a = await account();
  for (const body of [{}, { password: PASSWORD, code: '123456' }, { challenge_id: 'abc' }, { response: {} }]) {
    assertProblem(await reauth(a, body), 400, 'BAD_REQUEST', JSON.stringify(body));
  }
  assertProblem(await s.request('/api/account/reauth', { method: 'POST', body: { password: PASSWORD } }), 401, 'UNAUTHENTICATED');
});

test('GraphQL: reauthenticate and me.reauthenticatedUntil answer as REST does', async () => {
  const a = await account();
  const auth = { bearer: a.token, headers: a.headers };
  letWindowPass();
  const meUntil = async () => (await gql(s, '{ me { reauthenticatedUntil } }', {}, auth)).json.data.me.reauthenticatedUntil;
  assert.equal(await meUntil(), null);
  const wrong = await gql(s, 'mutation { reauthenticate(password: "wrong password here") }', {}, auth);
  assert.equal(gqlCode(wrong), 'UNAUTHENTICATED');
  const ok = await gql(s, 'mutation ($p: String!) { reauthenticate(password: $p) }', { p: PASSWORD }, auth);
  assert.equal(ok.json.data?.reauthenticate, true, ok.text);
  near(await meUntil(), s.clock.now().getTime() + WINDOW_MS);
  assert.equal(gqlCode(await gql(s, 'mutation { reauthenticate(password: "x") }')), 'UNAUTHENTICATED', 'signed out');
});

test('an account with neither password nor two-step re-authenticates with its provider (intent=reauth)', async () => {
  const email = uniqueEmail('reauth.sso');
  const user = fakeUser(email);
  const { browser } = await roundTrip(s, fake, 'google', user);
  const session = browser.session!;
  letWindowPass();
  assert.equal((await accountOf(s, { bearer: session })).json.reauthenticated_until, null);
  assertProblem(await s.request('/api/account/passkeys/options', { method: 'POST', bearer: session }), 403, 'REAUTH_REQUIRED');

  // Another Google identity does not stand in for the linked one.
  const other = await roundTrip(s, fake, 'google', fakeUser(uniqueEmail('someone.else')), { browser, intent: 'reauth' });
  assert.equal(appRedirect(other.callback).query.get('sso_error'), 'identity_mismatch');
  assert.equal((await accountOf(s, { bearer: session })).json.reauthenticated_until, null);
  // GitHub is not linked: refused at the start.
  assertProblem(await browser.get(s, '/auth/oauth/github/start?intent=reauth'), 400, 'BAD_REQUEST');

  const trip = await roundTrip(s, fake, 'google', user, { browser, intent: 'reauth' });
  assert.equal(appRedirect(trip.callback).query.get('sso_reauth'), 'google');
  assert.equal(browser.session, session, 'the same session, not a new one');
  const me = await accountOf(s, { bearer: session });
  near(me.json.reauthenticated_until, s.clock.now().getTime() + WINDOW_MS);
  assert.equal((await s.request('/api/account/passkeys/options', { method: 'POST', bearer: session })).status, 200);
  const events = (await s.request('/api/account/activity', { bearer: session })).json.events;
  assert.deepEqual(events[0].detail, { method: 'google' });

  // Signed out, intent=reauth is 401; with two-step on, the provider alone is refused.
  assertProblem(await s.request('/auth/oauth/google/start?intent=reauth'), 401, 'UNAUTHENTICATED');
  const setup = await s.request('/api/account/mfa/totp/setup', { method: 'POST', bearer: session, body: {} });
  const confirm = await s.request('/api/account/mfa/totp/confirm', { method: 'POST', bearer: session, body: { code: codeAt(setup.json.secret, s.clock.now()) } });
  assert.equal(confirm.status, 200, confirm.text);
  assertProblem(await browser.get(s, '/auth/oauth/google/start?intent=reauth'), 403, 'FORBIDDEN');
});

test('REAUTH_WINDOW_SECONDS sets the window', async () => {
  const short = await startTestServer({ env: { REAUTH_WINDOW_SECONDS: '60' } });
  try {
    const a = await signedIn(short, { verified: true });
    const me = (await short.request('/api/account', { bearer: a.token })).json;
    assert.equal(Date.parse(me.reauthenticated_until) - Date.parse(me.last_login.at), 60_000);
    short.clock.advance(61_000);
    assertProblem(await short.request('/api/account/passkeys/options', { method: 'POST', bearer: a.token }), 403, 'REAUTH_REQUIRED');
  } finally {
    await short.close();
  }
});
