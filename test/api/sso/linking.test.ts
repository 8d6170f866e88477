// Linking: an SSO email that matches a password account waits for the password (pending link),
// a password-less account is never merged, and intent=link binds to the signed-in account only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashToken } from '../../../src/infra/crypto/tokens.js';
import { PASSWORD, SESSION_TOKEN, fromIp, randomIp, signedIn } from '../../support/accounts.js';
import { request, sessionCookie } from '../../support/http.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { useFakeProviders } from '../../support/fake-providers.js';
import { APP_URL, Browser, accountOf, appRedirect, fakeUser, roundTrip } from '../../support/sso-browser.js';

const fake = useFakeProviders();
// TRUST_PROXY: the limit test guesses from a network of its own, not the suite's loopback.
const s = useServer(() => ({ env: { ...fake.env(), APP_URL, TRUST_PROXY: 'true' } }));

async function pendingLinkFor(email: string, provider: 'google' | 'github' = 'google') {
  const { token: bearer } = await signedIn(s, { email });
  const user = fakeUser(email);
  const trip = await roundTrip(s, fake, provider, user);
  const { path, query } = appRedirect(trip.callback);
  assert.equal(path, '/link-account');
  return { bearer, user, token: query.get('token')!, trip };
}

const confirm = (token: string, password: string, headers: Record<string, string> = {}) =>
  s.request('/auth/oauth/confirm-link', { method: 'POST', body: { token, password }, headers });

test('an SSO email matching a password account gives no session but a hashed 15-minute pending link', async () => {
  const email = uniqueEmail('pl.match');
  const { bearer, token, trip } = await pendingLinkFor(email);
  assert.equal(sessionCookie(trip.callback), null);
  assert.equal(trip.browser.session, undefined);
  assert.match(token, /^[a-z2-7]{32}$/);
  const row = await s.deps.db.pendingLink.findUnique({ where: { tokenHash: hashToken(token) } });
  assert.ok(row, 'stored under the SHA-256 of the token');
  assert.equal(row.expiresAt.getTime() - row.createdAt.getTime(), 15 * 60_000);
  assert.equal(await s.deps.db.pendingLink.count({ where: { tokenHash: token } }), 0);
  assert.deepEqual((await accountOf(s, { bearer })).json.linked_providers, []);
});

test('confirm-link: a wrong password is 401 and binds nothing; the right one binds, signs in, and works once', async () => {
  const email = uniqueEmail('pl.confirm');
  const { bearer, user, token } = await pendingLinkFor(email);
  const wrong = await confirm(token, 'not the password');
  assertProblem(wrong, 401, 'UNAUTHENTICATED');
  assert.equal(sessionCookie(wrong), null);
  assert.deepEqual((await accountOf(s, { bearer })).json.linked_providers, []);

  const ok = await confirm(token, PASSWORD);
  assert.equal(ok.status, 200);
  assert.match(ok.json.token, SESSION_TOKEN);
  assert.equal(ok.json.email_verified, false);
  assert.ok(!Number.isNaN(Date.parse(ok.json.expires_at)));
  assert.equal(sessionCookie(ok), ok.json.token);
  const me = await accountOf(s, { bearer: ok.json.token });
  assert.equal(me.json.email, email);
  assert.deepEqual(me.json.linked_providers.map((p: { provider: string }) => p.provider), ['google']);

  assert.equal((await confirm(token, PASSWORD)).status, 400, 'single use');
  // From now on the identity signs straight in.
  const again = await roundTrip(s, fake, 'google', user);
  assert.equal(appRedirect(again.callback).path, '/');
  assert.equal((await accountOf(s, { cookie: again.browser.session! })).json.id, me.json.id);
});

test('confirmLink over GraphQL returns AuthPayload and sets the session cookie', async () => {
  const { token } = await pendingLinkFor(uniqueEmail('pl.gql'), 'github');
  const reply = await s.request('/graphql', {
    method: 'POST',
    body: {
      query: 'mutation ($t: String!, $p: String!) { confirmLink(token: $t, password: $p) { token emailVerified expiresAt } }',
      variables: { t: token, p: PASSWORD },
    },
  });
  assert.equal(reply.status, 200);
  assert.equal(sessionCookie(reply), reply.json.data.confirmLink.token);
  const me = await accountOf(s, { bearer: reply.json.data.confirmLink.token });
  assert.equal(me.json.linked_providers[0].provider, 'github');
});

test('a pending link expires after 15 minutes, and malformed tokens are 400', async () => {
  const { token } = await pendingLinkFor(uniqueEmail('pl.expire'));
  s.clock.advance(15 * 60_000 + 1000);
  assert.equal((await confirm(token, PASSWORD)).status, 400);
  assert.equal((await confirm('nope', PASSWORD)).status, 400);
  assert.equal((await s.request('/auth/oauth/confirm-link', { method: 'POST', body: { password: PASSWORD } })).status, 400);
});

test('wrong confirm-link passwords count like failed logins (429 past the limit, even for the right one)', async () => {
  const email = uniqueEmail('pl.limit');
  const { token } = await pendingLinkFor(email);
  const headers = fromIp(randomIp());
  for (let i = 0; i < 10; i++) assert.equal((await confirm(token, `wrong-${i}-password`, headers)).status, 401);
  const limited = await confirm(token, PASSWORD, headers);
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers['retry-after']) > 0);
  // The same counter guards the password login of that account.
  assert.equal((await s.request('/auth/login', { method: 'POST', body: { email, password: PASSWORD }, headers })).status, 429);
});

test('an SSO email matching a password-less account is never merged: back to the app with an error', async () => {
  const email = uniqueEmail('pl.nopassword');
  const viaGithub = await roundTrip(s, fake, 'github', fakeUser(email));
  const owner = await accountOf(s, { cookie: viaGithub.browser.session! });
  const google = await roundTrip(s, fake, 'google', fakeUser(email));
  const { path, query } = appRedirect(google.callback);
  assert.equal(path, '/');
  assert.equal(query.get('sso_error'), 'use_existing_method');
  assert.equal(query.get('provider'), 'google');
  assert.equal(google.browser.session, undefined);
  assert.deepEqual(
    (await accountOf(s, { cookie: viaGithub.browser.session! })).json.linked_providers.map((p: { provider: string }) => p.provider),
    ['github'],
  );
  assert.equal(await s.deps.db.pendingLink.count({ where: { accountId: owner.json.id } }), 0);
  assert.equal(await s.deps.db.account.count({ where: { emailNormalized: email.toLowerCase() } }), 1);
});

test('intent=link binds the provider to the signed-in account, whatever the provider email', async () => {
  const { token: bearer } = await signedIn(s, { email: uniqueEmail('link.owner'), verified: true });
  const browser = new Browser();
  browser.cookies.set('session', bearer);
  const providerEmail = uniqueEmail('link.elsewhere');
  const trip = await roundTrip(s, fake, 'github', fakeUser(providerEmail), { browser, intent: 'link' });
  const { path, query } = appRedirect(trip.callback);
  assert.equal(path, '/');
  assert.equal(query.get('sso_linked'), 'github');
  assert.equal(browser.session, bearer, 'no new session: the browser stays signed in');
  const me = await accountOf(s, { bearer });
  assert.deepEqual(
    me.json.linked_providers.map((p: { provider: string; email: string }) => [p.provider, p.email]),
    [['github', providerEmail]],
  );
  assert.equal(await s.deps.db.account.count({ where: { emailNormalized: providerEmail.toLowerCase() } }), 0);
});

test('intent=link for an identity linked to another account is refused and changes nothing', async () => {
  const owner = await roundTrip(s, fake, 'google', fakeUser(uniqueEmail('link.first')));
  const identity = await s.deps.db.linkedIdentity.findFirstOrThrow({
    where: { account: { id: (await accountOf(s, { cookie: owner.browser.session! })).json.id } },
  });
  const { token: bearer } = await signedIn(s, { email: uniqueEmail('link.second'), verified: true });
  const browser = new Browser();
  browser.cookies.set('session', bearer);
  const user = { id: identity.providerUserId, email: identity.email, emailVerified: true };
  const trip = await roundTrip(s, fake, 'google', user, { browser, intent: 'link' });
  assert.equal(appRedirect(trip.callback).query.get('sso_error'), 'identity_in_use');
  assert.deepEqual((await accountOf(s, { bearer })).json.linked_providers, []);
  const still = await s.deps.db.linkedIdentity.findUniqueOrThrow({ where: { id: identity.id } });
  assert.equal(still.accountId, identity.accountId);
});

test('intent=link needs a session at start (401) and the same account at the callback', async () => {
  const noSession = await s.request('/auth/oauth/google/start?intent=link');
  assertProblem(noSession, 401, 'UNAUTHENTICATED');
  assert.equal(noSession.headers.location, undefined);

  const { token: bearer } = await signedIn(s, { email: uniqueEmail('link.logout'), verified: true });
  const browser = new Browser();
  browser.cookies.set('session', bearer);
  const start = await browser.get(s, '/auth/oauth/google/start?intent=link');
  assert.equal(start.status, 302);
  // Signed out before coming back: the link is not made.
  assert.equal((await s.request('/auth/logout', { method: 'POST', bearer })).status, 204);
  fake.google.user = fakeUser(uniqueEmail('link.logout.g'));
  fake.google.deny = false;
  const url = new URL(String(start.headers.location));
  const consent = await request(fake.url, url.pathname + url.search);
  const back = new URL(String(consent.headers.location));
  const callback = await browser.get(s, back.pathname + back.search);
  assert.equal(appRedirect(callback).query.get('sso_error'), 'session_changed');
  assert.equal(await s.deps.db.linkedIdentity.count({ where: { email: fake.google.user.email } }), 0);
});

test('the /link-account page names the provider and identity being linked, asks for the password and posts to confirm-link', async () => {
  const email = uniqueEmail('pl.page');
  const { token } = await pendingLinkFor(email, 'github');
  const page = await s.request(`/link-account?token=${token}`);
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-type']), /text\/html/);
  assert.match(page.text, /data-flow="link-account"/);
  assert.match(page.text, /<strong>GitHub<\/strong>/);
  assert.ok(page.text.includes(`<strong>${email}</strong>`), 'the provider email is shown');
  assert.match(page.text, /<input[^>]+name="password"[^>]+type="password"/);
  assert.equal(page.headers['referrer-policy'], 'no-referrer');
  const script = await s.request('/assets/link-pages.js');
  assert.match(script.text, /\/auth\/oauth\/confirm-link/);
  // Opening the page changed nothing: the link still works.
  assert.equal((await confirm(token, PASSWORD)).status, 200);
  // A used, unknown or malformed token shows no form, only what happened.
  for (const t of [token, 'abc']) {
    const gone = await s.request(`/link-account?token=${t}`);
    assert.equal(gone.status, 200);
    assert.doesNotMatch(gone.text, /<input/);
    assert.match(gone.text, /invalid, has expired or was already used/);
  }
});
