// Callback failures (state, provider errors, failing token endpoints) create nothing; unknown and
// disabled providers are 404; unlinking never removes the last way to sign in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LAST_METHOD_MESSAGE } from '../../../src/domain/sso/unlink.js';
import { signedIn } from '../../support/accounts.js';
import { request, sessionCookie, type Reply } from '../../support/http.js';
import { assertProblem } from '../../support/problem.js';
import { startTestServer, uniqueEmail, useServer } from '../../support/server.js';
import { useFakeProviders } from '../../support/fake-providers.js';
import { APP_URL, Browser, accountOf, appRedirect, fakeUser, roundTrip } from '../../support/sso-browser.js';

const fake = useFakeProviders();
const s = useServer(() => ({ env: { ...fake.env(), APP_URL, SERVICE_NAME: 'Acme Tunnels' } }));

const accountsWith = (email: string) => s.deps.db.account.count({ where: { emailNormalized: email.toLowerCase() } });

/** start and consent, without calling back yet. */
async function startAndConsent(browser: Browser, email: string) {
  const start = await browser.get(s, '/auth/oauth/google/start');
  fake.google.user = fakeUser(email);
  fake.google.deny = false;
  const url = new URL(String(start.headers.location));
  const consent = await request(fake.url, url.pathname + url.search);
  const back = new URL(String(consent.headers.location));
  return back.pathname + back.search;
}

function assertBadState(reply: Reply) {
  assertProblem(reply, 400, 'BAD_REQUEST');
  assert.equal(sessionCookie(reply), null);
}

test('a replayed callback is 400 and signs nobody in the second time', async () => {
  const email = uniqueEmail('st.replay');
  const browser = new Browser();
  const path = await startAndConsent(browser, email);
  const first = await browser.get(s, path);
  assert.equal(appRedirect(first).path, '/');
  const replay = await s.request(path, { cookie: `oauth_binding=${browser.cookies.get('oauth_binding')}` });
  assertBadState(replay);
});

test('a state used from another browser, a missing state, or a missing binding cookie is 400 and creates nothing', async () => {
  const email = uniqueEmail('st.foreign');
  const victim = new Browser();
  const path = await startAndConsent(victim, email);
  const attacker = new Browser();
  await attacker.get(s, '/auth/oauth/google/start'); // has a binding of its own
  assertBadState(await attacker.get(s, path));
  assertBadState(await s.request(path)); // no binding cookie at all
  const noState = path.replace(/([?&])state=[^&]*/, '$1state=');
  assertBadState(await victim.get(s, noState));
  assert.equal(await accountsWith(email), 0);
  // The victim's own state was not burned by the foreign attempts.
  assert.equal(appRedirect(await victim.get(s, path)).path, '/');
  assert.equal(await accountsWith(email), 1);
});

test('a state expires after 10 minutes', async () => {
  const email = uniqueEmail('st.expired');
  const browser = new Browser();
  const path = await startAndConsent(browser, email);
  s.clock.advance(10 * 60_000 + 1000);
  assertBadState(await browser.get(s, path));
  assert.equal(await accountsWith(email), 0);
});

test('a bad state asked for as HTML is a 400 page pointing back to the app', async () => {
  const reply = await s.request('/auth/oauth/google/callback?code=x&state=y', { headers: { accept: 'text/html' } });
  assert.equal(reply.status, 400);
  assert.match(String(reply.headers['content-type']), /text\/html/);
  assert.ok(reply.text.includes(`href="${APP_URL}/"`));
  assert.ok(!reply.text.includes('<script'));
  assert.ok(reply.text.includes('Acme Tunnels'), 'the page names the service (SERVICE_NAME)');
});

test('access_denied at the provider returns to the app with an error and creates nothing', async () => {
  const { callback, browser } = await roundTrip(s, fake, 'google', null);
  const { query } = appRedirect(callback);
  assert.equal(query.get('sso_error'), 'access_denied');
  assert.equal(query.get('provider'), 'google');
  assert.equal(browser.session, undefined);
});

test('a failing google token endpoint (500) or github token error (200 with error) creates nothing', async () => {
  const email = uniqueEmail('st.token');
  fake.google.tokenStatus = 500;
  try {
    const g = await roundTrip(s, fake, 'google', fakeUser(email));
    assert.equal(appRedirect(g.callback).query.get('sso_error'), 'provider_error');
    assert.equal(g.browser.session, undefined);
  } finally {
    fake.google.tokenStatus = null;
  }
  // GitHub answers bad codes with 200 and an error body: a code the provider never issued.
  const browser = new Browser();
  const start = await browser.get(s, '/auth/oauth/github/start');
  const state = new URL(String(start.headers.location)).searchParams.get('state')!;
  const gh = await browser.get(s, `/auth/oauth/github/callback?code=never-issued&state=${encodeURIComponent(state)}`);
  assert.equal(appRedirect(gh).query.get('sso_error'), 'provider_error');
  assert.equal(browser.session, undefined);
  assert.equal(await accountsWith(email), 0);
});

test('unknown providers are 404 on start and callback', async () => {
  for (const path of ['/auth/oauth/facebook/start', '/auth/oauth/facebook/callback?code=a&state=b']) {
    assertProblem(await s.request(path), 404, 'NOT_FOUND');
  }
});

test('a provider without client credentials is disabled: 404', async () => {
  const only = await startTestServer({ env: { ...fake.env('google'), APP_URL } });
  try {
    assert.equal((await only.request('/auth/oauth/github/start')).status, 404);
    assert.equal((await only.request('/auth/oauth/github/callback?code=a&state=b')).status, 404);
    assert.equal((await only.request('/auth/oauth/google/start')).status, 302);
  } finally {
    await only.close();
  }
});

test('unlink: 204 with a password; 404 when not linked or unknown; listed providers follow', async () => {
  const email = uniqueEmail('ul.password');
  const { token: bearer } = await signedIn(s, { email, verified: true });
  const browser = new Browser();
  browser.cookies.set('session', bearer);
  await roundTrip(s, fake, 'google', fakeUser(email), { browser, intent: 'link' });
  assert.equal((await accountOf(s, { bearer })).json.linked_providers.length, 1);
  assert.equal((await s.request('/api/account/sso/github', { method: 'DELETE', bearer })).status, 404);
  assert.equal((await s.request('/api/account/sso/facebook', { method: 'DELETE', bearer })).status, 404);
  assert.equal((await s.request('/api/account/sso/google', { method: 'DELETE', bearer })).status, 204);
  assert.deepEqual((await accountOf(s, { bearer })).json.linked_providers, []);
  assert.equal((await s.request('/api/account/sso/google', { method: 'DELETE', bearer })).status, 404);
  assert.equal((await s.request('/api/account/sso/google', { method: 'DELETE' })).status, 401);
});

test('unlink: the last sign-in method of a password-less account is refused with 400 and the SPEC message', async () => {
  const email = uniqueEmail('ul.last');
  const g = await roundTrip(s, fake, 'google', fakeUser(email));
  const cookie = g.browser.session!;
  // A second provider may go; the last one may not.
  await roundTrip(s, fake, 'github', fakeUser(uniqueEmail('ul.last.gh')), { browser: g.browser, intent: 'link' });
  assert.equal((await accountOf(s, { cookie })).json.linked_providers.length, 2);
  assert.equal((await s.request('/api/account/sso/github', { method: 'DELETE', cookie: `session=${cookie}` })).status, 204);
  const refused = await s.request('/api/account/sso/google', { method: 'DELETE', cookie: `session=${cookie}` });
  assertProblem(refused, 400, 'BAD_REQUEST');
  assert.equal(refused.json.detail, LAST_METHOD_MESSAGE);
  assert.match(refused.json.detail, /set a password before disconnecting the last login provider/i);
  assert.equal((await accountOf(s, { cookie })).json.linked_providers.length, 1);

  const gql = await s.request('/graphql', {
    method: 'POST',
    cookie: `session=${cookie}`,
    body: { query: 'mutation { unlinkProvider(provider: "google") }' },
  });
  assert.equal(gql.json.errors[0].extensions.code, 'BAD_REQUEST');
  assert.equal((await accountOf(s, { cookie })).json.linked_providers.length, 1);
});

test('unlink: two concurrent unlinks of a password-less account with two providers leave one', async () => {
  const g = await roundTrip(s, fake, 'google', fakeUser(uniqueEmail('ul.race')));
  const cookie = g.browser.session!;
  await roundTrip(s, fake, 'github', fakeUser(uniqueEmail('ul.race.gh')), { browser: g.browser, intent: 'link' });
  const answers = await Promise.all(
    ['google', 'github'].map((p) => s.request(`/api/account/sso/${p}`, { method: 'DELETE', cookie: `session=${cookie}` })),
  );
  assert.deepEqual(answers.map((a) => a.status).sort(), [204, 400]);
  assert.equal((await accountOf(s, { cookie })).json.linked_providers.length, 1);
});

test('an account that already has another identity of the provider is not given a second one', async () => {
  const email = uniqueEmail('pl.second');
  const { token: bearer } = await signedIn(s, { email, verified: true });
  const browser = new Browser();
  browser.cookies.set('session', bearer);
  await roundTrip(s, fake, 'google', fakeUser(uniqueEmail('pl.second.g1')), { browser, intent: 'link' });
  // Linking a second Google identity from settings is refused…
  const link = await roundTrip(s, fake, 'google', fakeUser(uniqueEmail('pl.second.g2')), { browser, intent: 'link' });
  assert.equal(appRedirect(link.callback).query.get('sso_error'), 'provider_already_linked');
  // …and so is a new Google identity carrying the account's email (no pending link is made).
  const signIn = await roundTrip(s, fake, 'google', fakeUser(email));
  assert.equal(appRedirect(signIn.callback).query.get('sso_error'), 'provider_already_linked');
  assert.equal(signIn.browser.session, undefined);
  const me = await accountOf(s, { bearer });
  assert.equal(me.json.linked_providers.length, 1);
  assert.equal(await s.deps.db.pendingLink.count({ where: { accountId: me.json.id } }), 0);
});

test('start refuses an unknown intent with 400', async () => {
  const reply = await s.request('/auth/oauth/google/start?intent=merge');
  assert.equal(reply.status, 400);
  assert.equal(reply.headers.location, undefined);
});
