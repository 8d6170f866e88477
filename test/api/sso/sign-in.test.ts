// Sign-in with Google and GitHub end to end: new accounts, returning identities, the session
// issue shared with password logins, and what never reaches the browser.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { timeOrderedTokenKey } from '../../../src/infra/crypto/tokens.js';
import { sessionCookie } from '../../support/http.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { useFakeProviders } from '../../support/fake-providers.js';
import { APP_URL, Browser, accountOf, appRedirect, fakeUser, roundTrip } from '../../support/sso-browser.js';
import { signedIn } from '../../support/accounts.js';

const fake = useFakeProviders();
const s = useServer(() => ({ env: { ...fake.env(), APP_URL, TRUST_PROXY: 'true', BASE_URL: 'http://localhost:4000' } }));

test('google start redirects to the provider with a browser-bound state and an S256 PKCE challenge only', async () => {
  const browser = new Browser();
  const start = await browser.get(s, '/auth/oauth/google/start');
  assert.equal(start.status, 302);
  const url = new URL(String(start.headers.location));
  assert.equal(url.origin + url.pathname, `${fake.url}/google/o/oauth2/v2/auth`);
  assert.equal(url.searchParams.get('client_id'), 'google-client');
  assert.equal(url.searchParams.get('redirect_uri'), 'http://localhost:4000/auth/oauth/google/callback');
  assert.equal(url.searchParams.get('response_type'), 'code');
  assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
  assert.match(url.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
  assert.ok((url.searchParams.get('state') ?? '').length >= 20);
  assert.equal(url.searchParams.get('code_verifier'), null);
  const binding = (start.headers['set-cookie'] ?? []).find((c) => c.startsWith('oauth_binding='));
  assert.ok(binding, 'a binding cookie is set');
  assert.match(binding, /HttpOnly/i);
  assert.match(binding, /SameSite=Lax/i);
  assert.match(binding, /Max-Age=600/i);
});

test('a new google identity with an unknown email creates a verified account, derives the slug and signs in', async () => {
  const email = uniqueEmail('g.new');
  const user = fakeUser(email, true);
  const { callback, browser } = await roundTrip(s, fake, 'google', user);
  assert.deepEqual(appRedirect(callback), { path: '/', query: new URLSearchParams() });
  const cookie = (callback.headers['set-cookie'] ?? []).find((c) => c.startsWith('session='));
  assert.ok(cookie && /HttpOnly/i.test(cookie) && /SameSite=Lax/i.test(cookie));
  const me = await accountOf(s, { cookie: browser.session! });
  assert.equal(me.status, 200);
  assert.equal(me.json.email, email);
  assert.equal(me.json.email_verified, true);
  assert.equal(me.json.slug, email.split('@')[0]!.replace(/[^a-z0-9]+/g, '-').slice(0, 20).replace(/-$/, ''));
  assert.equal(me.json.linked_providers.length, 1);
  assert.equal(me.json.linked_providers[0].provider, 'google');
  assert.equal(me.json.linked_providers[0].email, email);
  assert.ok(!Number.isNaN(Date.parse(me.json.linked_providers[0].linked_at)));
  assert.equal(me.json.last_login.ip, '127.0.0.x');
  const gql = await s.request('/graphql', {
    method: 'POST',
    cookie: `session=${browser.session}`,
    body: { query: '{ me { hasPassword linkedProviders { provider email linkedAt } } }' },
  });
  assert.equal(gql.json.data.me.hasPassword, false);
  assert.deepEqual(gql.json.data.me.linkedProviders, [
    { provider: 'google', email, linkedAt: me.json.linked_providers[0].linked_at },
  ]);
  // The creating network is the account's own: no login alert for it.
  // (Emails are outbox rows written with the sign-in, so the table is the whole truth.)
  assert.equal(await s.deps.db.outboxEmail.count({ where: { accountId: me.json.id, kind: 'login-alert' } }), 0);
});

test('an email the provider does not vouch for creates no account and matches none: back with unverified_email', async () => {
  for (const provider of ['google', 'github'] as const) {
    const email = uniqueEmail(`${provider}.unverified`);
    const { callback, browser } = await roundTrip(s, fake, provider, fakeUser(email, false));
    const { path, query } = appRedirect(callback);
    assert.equal(path, '/');
    assert.equal(query.get('sso_error'), 'unverified_email');
    assert.equal(query.get('provider'), provider);
    assert.equal(browser.session, undefined, 'no session');
    assert.equal(await s.deps.db.account.count({ where: { emailNormalized: email.toLowerCase() } }), 0, 'no account');
  }
  // The address of an existing password account: no pending link either.
  const victim = uniqueEmail('victim');
  await signedIn(s, { email: victim });
  const trip = await roundTrip(s, fake, 'google', fakeUser(victim, false));
  assert.equal(appRedirect(trip.callback).query.get('sso_error'), 'unverified_email');
  assert.equal(await s.deps.db.pendingLink.count({ where: { providerEmail: victim } }), 0);
});

test('an identity with an unverified email can still be linked from settings by a signed-in user', async () => {
  const { token: bearer } = await signedIn(s, { verified: true });
  const browser = new Browser();
  browser.cookies.set('session', bearer);
  const providerEmail = uniqueEmail('unverified.elsewhere');
  const trip = await roundTrip(s, fake, 'github', fakeUser(providerEmail, false), { browser, intent: 'link' });
  assert.equal(appRedirect(trip.callback).query.get('sso_linked'), 'github');
  const me = await accountOf(s, { bearer });
  assert.deepEqual(me.json.linked_providers.map((p: { provider: string }) => p.provider), ['github']);
});

test('a linked identity signs in like a password login: new session, last login, new-network alert', async () => {
  const email = uniqueEmail('g.return');
  const user = fakeUser(email);
  const first = await roundTrip(s, fake, 'google', user);
  const firstMe = await accountOf(s, { cookie: first.browser.session! });
  s.clock.advance(60_000);
  const away = new Browser({ 'x-forwarded-for': '198.51.100.23', 'user-agent': 'SSO-Test/2' });
  const second = await roundTrip(s, fake, 'google', user, { browser: away });
  assert.equal(appRedirect(second.callback).path, '/');
  assert.ok(away.session && away.session !== first.browser.session);
  const me = await accountOf(s, { cookie: away.session });
  assert.equal(me.json.id, firstMe.json.id);
  assert.equal(me.json.last_login.ip, '198.51.100.x');
  assert.ok(Date.parse(me.json.last_login.at) > Date.parse(firstMe.json.last_login.at));
  const sessions = await s.request('/api/sessions', { cookie: `session=${away.session}` });
  assert.equal(sessions.json.sessions.length, 2);
  assert.ok(sessions.json.sessions.some((x: { current: boolean; user_agent: string }) => x.current && x.user_agent === 'SSO-Test/2'));
  const alert = await s.smtp.waitFor(email, 'login-alert');
  assert.match(alert.raw, /198\.51\.100\.x/);
});

test('a new github identity creates an account from the primary email and its verified flag', async () => {
  const email = uniqueEmail('gh.new');
  const { start, callback, browser } = await roundTrip(s, fake, 'github', fakeUser(email, true));
  const authorize = new URL(String(start.headers.location));
  assert.equal(authorize.origin + authorize.pathname, `${fake.url}/github/login/oauth/authorize`);
  assert.equal(authorize.searchParams.get('redirect_uri'), 'http://localhost:4000/auth/oauth/github/callback');
  assert.equal(appRedirect(callback).path, '/');
  const me = await accountOf(s, { cookie: browser.session! });
  assert.equal(me.json.email, email);
  assert.equal(me.json.email_verified, true);
  assert.deepEqual(
    me.json.linked_providers.map((p: { provider: string; email: string }) => [p.provider, p.email]),
    [['github', email]],
  );
  // Returning with the same GitHub id signs in to the same account.
  const again = await roundTrip(s, fake, 'github', { id: (await idOf(email))!, email, emailVerified: true });
  assert.equal((await accountOf(s, { cookie: again.browser.session! })).json.id, me.json.id);
});

async function idOf(email: string): Promise<string | undefined> {
  const row = await s.deps.db.linkedIdentity.findFirst({ where: { email, provider: 'github' } });
  return row?.providerUserId;
}

test('a browser already signed in that completes a sign-in flow is signed in to the identity account', async () => {
  const first = await roundTrip(s, fake, 'google', fakeUser(uniqueEmail('g.one')));
  const firstId = (await accountOf(s, { cookie: first.browser.session! })).json.id;
  const before = first.browser.session;
  const otherEmail = uniqueEmail('g.two');
  const second = await roundTrip(s, fake, 'google', fakeUser(otherEmail), { browser: first.browser });
  appRedirect(second.callback);
  assert.notEqual(first.browser.session, before);
  const me = await accountOf(s, { cookie: first.browser.session! });
  assert.equal(me.json.email, otherEmail);
  assert.notEqual(me.json.id, firstId);
  // Nothing was merged into the first account.
  const old = await accountOf(s, { cookie: before! });
  assert.equal(old.json.linked_providers.length, 1);
});

test('the PKCE verifier and the provider access token never reach the browser', async () => {
  fake.google.verifiers.length = 0;
  fake.google.accessTokens.length = 0;
  const { start, callback, authorizeUrl } = await roundTrip(s, fake, 'google', fakeUser(uniqueEmail('g.secret')));
  const [verifier] = fake.google.verifiers;
  const [accessToken] = fake.google.accessTokens;
  assert.ok(verifier && accessToken);
  // The provider got a verifier matching the challenge it was shown at authorize time.
  assert.equal(createHash('sha256').update(verifier).digest('base64url'), authorizeUrl.searchParams.get('code_challenge'));
  for (const reply of [start, callback]) {
    const seen = JSON.stringify(reply.headers) + reply.text;
    assert.ok(!seen.includes(verifier), 'verifier leaked');
    assert.ok(!seen.includes(accessToken), 'access token leaked');
  }
  assert.ok(!authorizeUrl.href.includes(verifier));
  // Stored nowhere in the database either.
  const session = sessionCookie(callback)!;
  const row = await s.deps.db.session.findUnique({ where: { tokenHash: timeOrderedTokenKey(session) } });
  assert.ok(row);
  assert.ok(!JSON.stringify(row).includes(accessToken));
});
