// The consent page of the authorization server in Chromium (API.md sections 13 and 13a): an
// unverified account is asked to verify its address first (resend, look again) and can only deny;
// a verified account not on the tunnel's list sees why and can only deny; a session past its recent
// sign-in confirms it is the person (the console's dialog) and the same request is then allowed.
// axe-core and screenshots at desktop and phone width (test-artifacts/console/consent-*), nothing
// beyond loopback, no CSP violation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { useFixture } from '../../support/fixture.js';
import { freePort } from '../../support/programs.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { login, signedIn, signup, verify, type Account } from '../../support/accounts.js';
import { createTunnel } from '../../support/tunnels.js';
import { REDIRECT, authorize, form, pkce, register } from '../../support/oauth.js';
import { useFakeProviders } from '../../support/fake-providers.js';
import { accountOf, fakeUser, roundTrip } from '../../support/sso-browser.js';
import { assertClean, checkPage, needsChromium, newContext, useBrowser, type Watch } from './browser.js';

const port = useFixture(() => freePort(), async () => {}, needsChromium());
// A fake Google on loopback (started before the server, whose env names its URLs).
const fake = useFakeProviders();
const s = useServer(
  () => {
    const origin = `http://localhost:${port()}`;
    return { port: port(), env: { BASE_URL: origin, APP_URL: origin, ...fake.env('google') } };
  },
  needsChromium(),
);
const browser = useBrowser();
const url = (path: string) => `${s.url}${path}`;
const watches: Watch[] = [];

/** A browser context signed in as `account` (its own session), the application's redirect answered locally. */
async function signedInBrowser(account: Pick<Account, 'email' | 'password'>): Promise<{ context: BrowserContext; page: Page }> {
  return browserWithSession((await login(s, account)).cookie);
}

/** A browser context holding the session cookie `session`, the application's redirect answered locally. */
async function browserWithSession(session: string): Promise<{ context: BrowserContext; page: Page }> {
  const { context, watch } = await newContext(browser());
  watches.push(watch);
  await context.addCookies([{ name: 'session', value: session, url: s.url }]);
  // The application's redirect target: answered here, so the browser stays on loopback and quiet.
  await context.route(`${new URL(REDIRECT).origin}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'back in the application' }));
  return { context, page: await context.newPage() };
}

/** An application asking for `host`'s /mcp: the browser goes through /oauth/authorize to the consent page. */
async function toConsentPage(page: Page, host: string, state: string): Promise<{ clientId: string; verifier: string; resource: string }> {
  const resource = `https://${host}/mcp`;
  const { client_id: clientId } = await register(s);
  const { verifier, challenge } = pkce();
  const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state, scope: 'mcp', resource });
  await page.goto(url(`/oauth/authorize?${q}`));
  await page.waitForURL((u) => u.pathname === '/oauth/consent');
  await page.getByRole('heading', { level: 1, name: `Allow Desk Assistant to use ${host}?` }).waitFor();
  return { clientId, verifier, resource };
}

/** No sideways scrolling at `width` (the phone width the brief names, besides checkPage's 360 px). */
async function noOverflowAt(page: Page, width: number): Promise<void> {
  const before = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.setViewportSize({ width, height: 800 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `scrolls sideways at ${width} px by ${overflow} px`);
  await page.setViewportSize(before);
}

test('an unverified account on the list: verify first (resend, look again), no Allow; once verified, Allow', needsChromium(), async () => {
  const owner = await signedIn(s, { verified: true });
  const guest = await signup(s);
  const tunnel = await createTunnel(s, owner, { access: 'oauth', allowed_emails: [guest.email] });
  const { context, page } = await signedInBrowser(guest);
  try {
    const flow = await toConsentPage(page, tunnel.host, 'unverified-1');
    const main = page.locator('main');
    await assert.doesNotReject(main.getByText('Verify your email address first.').waitFor(), 'the verify-first message');
    assert.equal(await main.getByRole('button', { name: 'Allow', exact: true }).count(), 0, 'no Allow button while unverified');
    assert.equal(await main.getByRole('button', { name: 'Deny', exact: true }).count(), 1);
    assert.equal(await main.getByText('Ask its owner to add your address').count(), 0, 'not the not-on-the-list explanation');
    await checkPage(page, 'consent-verify-first');
    await noOverflowAt(page, 390);

    // The same resend as the banner's.
    await main.getByRole('button', { name: 'Resend the verification email' }).click();
    await assert.doesNotReject(main.getByText(`A new verification link is on its way to ${guest.email}.`).waitFor());
    await s.smtp.waitFor(guest.email, 'verify-email', 2);

    // Verified elsewhere (the email's link): "I have verified it" looks again, and Allow is offered.
    await verify(s, guest, 2);
    await main.getByRole('button', { name: 'I have verified it' }).click();
    await assert.doesNotReject(main.getByText('Your address is verified. You can allow this request now.').waitFor());
    await main.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.waitForURL((u) => u.href.startsWith(REDIRECT));
    const back = new URL(page.url());
    assert.equal(back.searchParams.get('state'), 'unverified-1');
    const tokens = await form(s, '/oauth/token', { grant_type: 'authorization_code', code: back.searchParams.get('code') ?? '', code_verifier: flow.verifier, redirect_uri: REDIRECT, client_id: flow.clientId, resource: flow.resource });
    assert.equal(tokens.status, 200, tokens.text);
  } finally {
    await context.close();
  }
});

test('a verified account not on the list: why, and only Deny', needsChromium(), async () => {
  const owner = await signedIn(s, { verified: true });
  const stranger = await signedIn(s, { verified: true });
  const tunnel = await createTunnel(s, owner, { access: 'oauth', allowed_emails: ['someone-else@example.com'] });
  const { context, page } = await signedInBrowser(stranger);
  try {
    await toConsentPage(page, tunnel.host, 'stranger-1');
    const main = page.locator('main');
    await assert.doesNotReject(main.getByText(`Your account (${stranger.email}) is not allowed on this tunnel. Ask its owner to add your address, then try again.`, { exact: false }).waitFor());
    assert.equal(await main.getByText('Verify your email address first.').count(), 0);
    assert.equal(await main.getByRole('button', { name: 'Allow', exact: true }).count(), 0, 'no Allow button');
    await checkPage(page, 'consent-not-allowed');
    await noOverflowAt(page, 390);
    await main.getByRole('button', { name: 'Deny', exact: true }).click();
    await page.waitForURL((u) => u.href.startsWith(REDIRECT));
    assert.equal(new URL(page.url()).searchParams.get('error'), 'access_denied');
  } finally {
    await context.close();
  }
});

test('a session past its recent sign-in: Allow opens the dialog; cancelled, nothing happens; confirmed, the code arrives', needsChromium(), async () => {
  const holder = await signedIn(s, { verified: true });
  const tunnel = await createTunnel(s, holder, { access: 'oauth' });
  const { context, page } = await signedInBrowser(holder);
  try {
    // API.md 7a: recent for REAUTH_WINDOW_SECONDS (10 minutes) after signing in.
    s.clock.advance(11 * 60_000);
    const flow = await toConsentPage(page, tunnel.host, 'reauth-1');
    const main = page.locator('main');
    await checkPage(page, 'consent-allowed');
    await noOverflowAt(page, 390);
    await main.getByRole('button', { name: 'Allow', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' });
    await assert.doesNotReject(dialog.waitFor(), 'the confirmation dialog (approve answers REAUTH_REQUIRED)');
    await assert.doesNotReject(dialog.getByText('Allowing an application to use your tunnel needs a recent sign-in.').waitFor());
    assert.equal(await dialog.getByText('Adding a way to sign in').count(), 0, 'the wording fits this action');

    // Closed: nothing sent, the request still there.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await assert.doesNotReject(main.getByText('Not allowed yet: nothing was sent to the application.', { exact: false }).waitFor());
    assert.ok(page.url().startsWith(url('/oauth/consent')), 'still on the consent page');

    // Again: a wrong password is explained in the dialog, the right one allows the same request.
    await main.getByRole('button', { name: 'Allow', exact: true }).click();
    await dialog.waitFor();
    await dialog.getByLabel('Password', { exact: true }).fill('not the password');
    await dialog.getByRole('button', { name: 'Confirm', exact: true }).click();
    await assert.doesNotReject(dialog.getByText('That is not your password.').waitFor());
    await checkPage(page, 'consent-reauth-dialog');
    await noOverflowAt(page, 390);
    await dialog.getByLabel('Password', { exact: true }).fill(holder.password);
    await dialog.getByRole('button', { name: 'Confirm', exact: true }).click();
    await page.waitForURL((u) => u.href.startsWith(REDIRECT));
    const back = new URL(page.url());
    assert.equal(back.searchParams.get('state'), 'reauth-1');
    assert.equal(back.searchParams.get('iss'), s.deps.config.baseUrl);
    const code = back.searchParams.get('code');
    assert.ok(code, 'a code for the application');
    const tokens = await form(s, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: flow.verifier, redirect_uri: REDIRECT, client_id: flow.clientId, resource: flow.resource });
    assert.equal(tokens.status, 200, tokens.text);
  } finally {
    await context.close();
  }
});

test('an account with only Google: Allow asks to continue with Google, which comes back to the same request, then Allow', needsChromium(), async () => {
  // Signed up through the (fake) Google only: no password, the provider-verified address verified.
  const email = uniqueEmail('sso-consent');
  const user = fakeUser(email, true);
  const signup = await roundTrip(s, fake, 'google', user);
  assert.equal(signup.callback.status, 302, signup.callback.text);
  const session = signup.browser.session;
  assert.ok(session, 'signed in by the provider');
  const me = await accountOf(s, { cookie: session });
  assert.equal(me.status, 200, me.text);
  assert.equal(me.json.email, email);
  assert.equal(me.json.email_verified, true, 'a provider-verified address is verified');
  assert.deepEqual(me.json.linked_providers.map((p: { provider: string }) => p.provider), ['google']);
  const noPassword = await s.request('/graphql', { method: 'POST', cookie: `session=${session}`, body: { query: '{ me { hasPassword } }' } });
  assert.equal(noPassword.json.data.me.hasPassword, false, 'an SSO-only account');

  // Its own oauth tunnel (the owner is always allowed), and an application's request for it.
  const tunnel = await createTunnel(s, { token: session }, { access: 'oauth' });
  const resource = `https://${tunnel.host}/mcp`;
  const { client_id: clientId } = await register(s);
  const { verifier, challenge } = pkce();
  const started = await authorize(s, clientId, resource, challenge, { state: 'sso-reauth-1' });
  assert.equal(started.status, 302, started.text);
  const consentUrl = new URL(String(started.headers.location));
  assert.equal(`${consentUrl.origin}${consentUrl.pathname}`, url('/oauth/consent'));
  const id = consentUrl.searchParams.get('request');
  assert.ok(id, 'the consent page names the request');

  const { context, page } = await browserWithSession(session);
  try {
    await page.goto(consentUrl.href);
    await page.getByRole('heading', { level: 1, name: `Allow Desk Assistant to use ${tunnel.host}?` }).waitFor();
    const main = page.locator('main');
    await assert.doesNotReject(main.getByText(`Signed in as ${email}.`, { exact: false }).waitFor(), 'the owner may allow');

    // API.md 7a: recent for REAUTH_WINDOW_SECONDS (10 minutes) after signing in.
    s.clock.advance(11 * 60_000);
    await main.getByRole('button', { name: 'Allow', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Confirm it’s you' });
    await assert.doesNotReject(dialog.waitFor(), 'the confirmation dialog (approve answers REAUTH_REQUIRED)');
    await assert.doesNotReject(dialog.getByText('Allowing an application to use your tunnel needs a recent sign-in.').waitFor());
    assert.equal(await dialog.getByLabel('Password', { exact: true }).count(), 0, 'no password to ask for');
    const google = dialog.getByRole('link', { name: 'Continue with Google' });
    assert.equal(await google.count(), 1, 'the dialog offers the linked provider');
    assert.equal(await dialog.getByRole('link', { name: 'Continue with GitHub' }).count(), 0, 'only the linked provider');

    // At the fake Google the same identity consents; the service's callback sends the browser back to the console.
    fake.google.user = user;
    fake.google.deny = false;
    const toProvider = page.waitForRequest((r) => r.url().startsWith(`${fake.url}/google/o/oauth2/v2/auth`));
    const toCallback = page.waitForRequest((r) => r.url().startsWith(url('/auth/oauth/google/callback')));
    await google.click();
    await toProvider;
    await toCallback;
    // The console's start page takes up the resume: it must end on the consent page of the same request.
    await page.waitForFunction(() => location.pathname !== '/' && document.querySelector('main h1') !== null);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    const landed = new URL(page.url());
    assert.notEqual(landed.pathname, '/security', 'not Security: the consent resume goes back to its page');
    assert.equal(landed.pathname, '/oauth/consent', `back on the consent page, not ${landed.pathname}`);
    assert.equal(landed.searchParams.get('request'), id, 'the same request');
    assert.equal(landed.searchParams.has('sso_reauth'), false);
    await page.getByRole('heading', { level: 1, name: `Allow Desk Assistant to use ${tunnel.host}?` }).waitFor();
    await assert.doesNotReject(page.getByText('Confirmed with Google. Allow the application now.').waitFor());
    const recent = await accountOf(s, { cookie: session });
    assert.ok(recent.json.reauthenticated_until, 'the same session, recently authenticated');

    // Allow now goes through without a dialog: back to the application with its code.
    await main.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.waitForURL((u) => u.href.startsWith(REDIRECT));
    assert.equal(await dialog.count(), 0, 'no second confirmation');
    const back = new URL(page.url());
    assert.equal(back.searchParams.get('state'), 'sso-reauth-1');
    assert.equal(back.searchParams.get('iss'), s.deps.config.baseUrl);
    const code = back.searchParams.get('code');
    assert.ok(code, 'a code for the application');
    const tokens = await form(s, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId, resource });
    assert.equal(tokens.status, 200, tokens.text);
  } finally {
    await context.close();
  }
});

test('afterwards: no request left loopback, no CSP violation, no script error', needsChromium(), () => {
  for (const watch of watches) assertClean(watch);
});
