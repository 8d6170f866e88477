// The account console end to end (issue 13): headless Chromium drives every flow against a real
// server whose APP_URL and BASE_URL are its own origin, reads emails from the SMTP sink, runs
// axe-core on each page (no serious or critical violation), keeps screenshots at desktop and
// phone width under test-artifacts/console/, and may reach nothing but loopback.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import { useFixture } from '../../support/fixture.js';
import { fakeUser } from '../../support/sso-browser.js';
import { useFakeProviders } from '../../support/fake-providers.js';
import { freePort } from '../../support/programs.js';
import { freshCode } from '../../support/totp.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { assertClean, checkPage, needsChromium, newContext, screenshots, useBrowser } from './browser.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'staple battery horse';

const port = useFixture(() => freePort(), async () => {}, needsChromium());
const fake = useFakeProviders();
const s = useServer(
  () => {
    const origin = `http://localhost:${port()}`;
    return { port: port(), env: { BASE_URL: origin, APP_URL: origin, WEBHOOK_ALLOW_PRIVATE: 'true', ...fake.env() } };
  },
  needsChromium(),
);
const browser = useBrowser();

// One context (one "person") walks through the console; tests run in order and share it.
const ctx = useFixture(
  async () => {
    const { context, watch } = await newContext(browser());
    const page = await context.newPage();
    return { context, watch, page };
  },
  async (c) => c.context.close(),
  needsChromium(),
);
const person: { email: string; password: string; slug?: string } = { email: uniqueEmail('console'), password: PASSWORD };

const url = (path: string) => `${s.url}${path}`;
const page = (): Page => ctx().page;
const main = () => page().locator('main');

async function signOut(p: Page): Promise<void> {
  await p.getByRole('button', { name: 'Sign out', exact: true }).click();
  await p.waitForURL(url('/sign-in'));
  await p.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
}

/** The session's recent sign-in is over (API.md 7a): the server's clock moves past the window. */
const letReauthWindowPass = () => s.clock.advance(11 * 60_000);

/**
 * The confirmation dialog asks for the password and closes once it is right. With `screenshot`, a
 * wrong one first (explained in the dialog), and the pictures of it.
 */
async function confirmInDialog(p: Page, password: string, screenshot?: string): Promise<void> {
  const dialog = p.getByRole('dialog', { name: 'Confirm it’s you' });
  await dialog.waitFor();
  if (screenshot) {
    await dialog.getByLabel('Password', { exact: true }).fill('not the password');
    await dialog.getByRole('button', { name: 'Confirm', exact: true }).click();
    await assert.doesNotReject(dialog.getByText('That is not your password.').waitFor());
    await checkPage(p, screenshot);
  }
  await dialog.getByLabel('Password', { exact: true }).fill(password);
  await dialog.getByRole('button', { name: 'Confirm', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

/** The browser's session cookie, as a Cookie header for the API. */
async function sessionCookieOf(p: Page): Promise<string> {
  const session = (await p.context().cookies()).find((c) => c.name === 'session');
  assert.ok(session, 'signed in');
  return `session=${session.value}`;
}

async function signIn(p: Page, email: string, password: string): Promise<void> {
  await p.goto(url('/sign-in'));
  await p.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await p.getByLabel('Email', { exact: true }).fill(email);
  await p.getByLabel('Password', { exact: true }).fill(password);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
  await p.waitForURL(url('/account'));
}

test('signed out, / opens the sign-in page: password form, Google and GitHub buttons (enabled here), links', needsChromium(), async () => {
  const t0 = Date.now();
  await page().goto(url('/'));
  await page().waitForURL(url('/sign-in'));
  if (process.env.CONSOLE_TIMING) console.log(`first load ${Date.now() - t0} ms`);
  await assert.doesNotReject(page().getByRole('heading', { level: 1, name: 'Sign in' }).waitFor());
  assert.equal(await page().getByRole('link', { name: 'Sign in with Google' }).getAttribute('href'), '/auth/oauth/google/start');
  assert.equal(await page().getByRole('link', { name: 'Sign in with GitHub' }).getAttribute('href'), '/auth/oauth/github/start');
  assert.equal(await page().getByRole('button', { name: 'Sign in with a passkey' }).count(), 1);
  await checkPage(page(), 'sign-in');

  await page().getByRole('link', { name: 'Forgot your password?' }).click();
  await page().waitForURL(url('/forgot-password'));
  await checkPage(page(), 'forgot-password');
  await page().getByRole('link', { name: 'Back to sign in' }).click();
  await page().getByRole('link', { name: 'Create an account' }).click();
  await page().waitForURL(url('/sign-up'));
  await checkPage(page(), 'sign-up');
});

test('the shell is strict: same-origin script and stylesheet, no inline code, a CSP without unsafe-*', needsChromium(), async () => {
  const r = await s.request('/sign-in');
  assert.equal(r.status, 200);
  const csp = String(r.headers['content-security-policy']);
  assert.match(csp, /script-src 'self'/);
  assert.match(csp, /style-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-/);
  assert.doesNotMatch(r.text, /<style|style=|<script>(?!<)/);
  assert.doesNotMatch(r.text, /(src|href)="(https?:)?\/\//i);
  const js = await s.request('/assets/console.js');
  assert.equal(js.status, 200);
  assert.match(String(js.headers['content-type']), /javascript/);
  assert.doesNotMatch(js.text, /\beval\(|new Function\(/);
});

test('sign up: signed in at once, the unverified banner shows; Resend sends a link, then the limit is explained kindly', needsChromium(), async () => {
  await page().goto(url('/sign-up'));
  await page().getByLabel('Email', { exact: true }).fill(person.email);
  await page().getByLabel('Password', { exact: true }).fill('short');
  await page().getByRole('button', { name: 'Create account' }).click();
  await assert.doesNotReject(main().getByText('The password needs at least 8 characters.').waitFor());
  await page().getByLabel('Password', { exact: true }).fill(person.password);
  await page().getByRole('button', { name: 'Create account' }).click();
  await page().waitForURL(url('/account'));
  await assert.doesNotReject(page().getByText(`Welcome! We sent a verification link to ${person.email}.`).waitFor());
  const banner = page().locator('#verify-banner');
  await assert.doesNotReject(banner.getByText('Please verify your email address').waitFor());
  await checkPage(page(), 'account-unverified');
  await s.smtp.waitFor(person.email, 'verify-email', 1);

  await banner.getByRole('button', { name: 'Resend the email' }).click();
  await assert.doesNotReject(banner.getByText(`A new verification link is on its way to ${person.email}.`).waitFor());
  await s.smtp.waitFor(person.email, 'verify-email', 2);
  // API.md: at most 5 resends per 15 minutes, then 429 with Retry-After.
  for (let i = 0; i < 6; i++) {
    await banner.getByRole('button', { name: 'Resend the email' }).click();
    await banner.locator('.status').filter({ hasText: /on its way|Too many/ }).waitFor();
    if ((await banner.locator('.status.error').count()) > 0) break;
    await page().waitForFunction(() => !document.querySelector('#verify-banner button')?.hasAttribute('disabled'));
  }
  const limited = await banner.locator('.status.error').textContent();
  assert.match(limited ?? '', /^Too many attempts for now\. Please try again in about \d+ minutes\.$/);
});

test('the verification link (from the email) verifies; back in the console the banner is gone', needsChromium(), async () => {
  const mail = s.smtp.to(person.email, 'verify-email').at(-1)!;
  const link = mail.links.find((l) => l.includes('/verify-email?token='))!;
  assert.ok(link.startsWith(`${s.url}/verify-email?token=`), `the link points at this server: ${link}`);
  const other = await ctx().context.newPage();
  await other.goto(link);
  await assert.doesNotReject(other.getByText('Your email is verified.').waitFor());
  assert.equal(new URL(other.url()).search, '', 'the token left the address bar');
  await checkPage(other, 'link-verify-email');
  await other.close();
  await page().bringToFront();
  await page().evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
  await page().locator('#verify-banner').waitFor({ state: 'detached' });
  await page().reload();
  assert.equal(await page().locator('#verify-banner').count(), 0);
  const facts = page().locator('#profile');
  await assert.doesNotReject(facts.getByText('Yes').waitFor());
});

test('profile shows email, verified, plan and last sign-in; the slug rules are explained; 400 and 409 are shown', needsChromium(), async () => {
  const profile = page().locator('#profile');
  await assert.doesNotReject(profile.getByText(person.email).waitFor());
  assert.match((await profile.textContent()) ?? '', /Plan\s*free/);
  assert.match((await profile.textContent()) ?? '', /Last sign-in.*from 127\.0\.0\.x/);
  const slug = page().locator('#slug');
  assert.match((await slug.textContent()) ?? '', /3 to 28 characters: lowercase letters, digits and hyphens/);
  const taken = await s.request('/auth/signup', { method: 'POST', body: { email: uniqueEmail('taken'), password: PASSWORD } });
  assert.equal(taken.status, 201);
  await slug.getByLabel('New slug').fill(taken.json.slug);
  await slug.getByRole('button', { name: 'Rename' }).click();
  await assert.doesNotReject(slug.getByText(`The slug "${taken.json.slug}" is taken. Choose another one.`).waitFor());
  await slug.getByLabel('New slug').fill('admin');
  await slug.getByRole('button', { name: 'Rename' }).click();
  await slug.locator('.field-error').filter({ hasText: 'reserved' }).waitFor();
  await checkPage(page(), 'account-slug-error');
  person.slug = `c${Date.now().toString(36)}`;
  await slug.getByLabel('New slug').fill(person.slug);
  await slug.getByRole('button', { name: 'Rename' }).click();
  await assert.doesNotReject(page().getByText(`Your slug is now ${person.slug}.`).waitFor());
  await assert.doesNotReject(page().locator('#profile code').getByText(person.slug, { exact: true }).waitFor());
});

test('change password: a wrong current password is refused, the right one changes it', needsChromium(), async () => {
  const form = page().locator('#password');
  await form.getByLabel('Current password').fill('not my password');
  await form.getByLabel('New password').fill(NEW_PASSWORD);
  await form.getByRole('button', { name: 'Change password' }).click();
  await assert.doesNotReject(form.getByText('That is not your current password.').waitFor());
  await form.getByLabel('Current password').fill(person.password);
  await form.getByRole('button', { name: 'Change password' }).click();
  await assert.doesNotReject(form.getByText('Your password is changed.', { exact: false }).waitFor());
  person.password = NEW_PASSWORD;
});

test('change email: a link goes to the new address; its page confirms; the console shows the new email', needsChromium(), async () => {
  const form = page().locator('#email');
  const newEmail = uniqueEmail('moved');
  await form.getByLabel('New email').fill(newEmail);
  await form.getByLabel('Current password').fill(person.password);
  await form.getByRole('button', { name: 'Change email' }).click();
  await assert.doesNotReject(form.getByText(`We sent a confirmation link to ${newEmail}. Your email stays ${person.email} until you open it.`).waitFor());
  const mail = await s.smtp.waitFor(newEmail, 'confirm-email-change');
  const other = await ctx().context.newPage();
  await other.goto(mail.links.find((l) => l.includes('/confirm-email-change?token='))!);
  await checkPage(other, 'link-confirm-email-change');
  await other.getByRole('button', { name: 'Confirm new email' }).click();
  await assert.doesNotReject(other.getByText(`Your email is now ${newEmail}.`).waitFor());
  await other.close();
  person.email = newEmail;
  await page().reload();
  await assert.doesNotReject(page().locator('#profile').getByText(newEmail).waitFor());
});

test('tunnels: create (host shown), rules error, discoverable switch serves the live card, delete', needsChromium(), async () => {
  await page().getByRole('link', { name: 'Tunnels' }).click();
  await page().waitForURL(url('/tunnels'));
  const form = page().locator('#new-tunnel');
  await assert.doesNotReject(form.locator('code').getByText(`<subdomain>--${person.slug}.tunnels.localhost`, { exact: true }).waitFor(), 'the hint shows the whole host');
  await form.getByLabel('Subdomain').fill('-bad-');
  await form.getByRole('button', { name: 'Create tunnel' }).click();
  await form.locator('.field-error').getByText('The subdomain cannot start or end with a hyphen or contain "--".').waitFor();
  await form.getByLabel('Subdomain').fill('weather');
  await form.getByRole('button', { name: 'Create tunnel' }).click();
  const host = `weather--${person.slug}.tunnels.localhost`;
  await assert.doesNotReject(page().getByText(`The tunnel ${host} is created.`, { exact: false }).waitFor());
  const tunnel = page().locator('li.tunnel').filter({ hasText: 'weather' });
  await assert.doesNotReject(tunnel.locator('code.host').getByText(host, { exact: true }).waitFor());
  const cardLink = tunnel.getByRole('link', { name: /Open the live Server Card/ });
  const href = await cardLink.getAttribute('href');
  assert.equal(href, `http://${host}:${port()}/.well-known/mcp/server-card.json`);
  const card = await ctx().context.newPage();
  assert.equal((await card.goto(href!))?.status(), 404, 'not discoverable yet');

  const toggle = tunnel.getByRole('switch', { name: 'Discoverable' });
  assert.equal(await toggle.isChecked(), false);
  await toggle.check();
  await assert.doesNotReject(page().getByText(`${host} is now discoverable.`).waitFor());
  await checkPage(page(), 'tunnels');
  const served = await card.goto(href!);
  assert.equal(served?.status(), 200);
  const body = JSON.parse(await served!.text());
  assert.equal(body.title, `weather--${person.slug}`);
  await card.close();
  await page().reload();
  assert.equal(await page().locator('li.tunnel').filter({ hasText: 'weather' }).getByRole('switch', { name: 'Discoverable' }).isChecked(), true, 'kept after reload');

  await form.getByLabel('Subdomain').fill('scratch');
  await form.getByRole('button', { name: 'Create tunnel' }).click();
  const scratch = page().locator('li.tunnel').filter({ hasText: 'scratch' });
  await scratch.waitFor();
  await scratch.getByRole('button', { name: 'Delete tunnel scratch' }).click();
  await scratch.getByRole('button', { name: /Confirm: delete tunnel scratch/ }).click();
  await assert.doesNotReject(page().getByText('The tunnel scratch is deleted.').waitFor());
  await scratch.waitFor({ state: 'detached' });
});

test('tunnel access: require sign-in, allow an @domain, the exact URL shown; the metadata follows the switch', needsChromium(), async () => {
  const host = `weather--${person.slug}.tunnels.localhost`;
  const tunnel = page().locator('li.tunnel').filter({ hasText: 'weather' });
  const prm = () => s.request('/.well-known/oauth-protected-resource/mcp', { host });
  assert.equal((await prm()).status, 404, 'public: no metadata');
  const toggle = tunnel.getByRole('switch', { name: 'Require sign-in (OAuth)' });
  assert.equal(await toggle.isChecked(), false);
  await toggle.check();
  await assert.doesNotReject(page().getByText(`${host} now needs a sign-in on /mcp.`).waitFor());
  // Reached as this page is (http and the port here), like the card link beside it.
  await assert.doesNotReject(tunnel.locator('code.mcp-url').getByText(`http://${host}:${port()}/mcp`, { exact: true }).waitFor());
  const metadata = await prm();
  assert.equal(metadata.status, 200, metadata.text);
  assert.equal(JSON.parse(metadata.text).resource, `https://${host}/mcp`);

  const entry = tunnel.getByLabel('Allow an address or a whole @domain');
  await entry.fill('not an address');
  await tunnel.getByRole('button', { name: 'Allow', exact: true }).click();
  await assert.doesNotReject(page().getByText('is not an email address or @domain', { exact: false }).waitFor());
  await entry.fill('@Partner.Example');
  await tunnel.getByRole('button', { name: 'Allow', exact: true }).click();
  await assert.doesNotReject(page().getByText('@Partner.Example may now sign in to weather.').waitFor());
  await assert.doesNotReject(tunnel.locator('.allowed-emails code').getByText('@partner.example', { exact: true }).waitFor());
  await entry.fill('ada@example.com');
  await tunnel.getByRole('button', { name: 'Allow', exact: true }).click();
  await assert.doesNotReject(tunnel.locator('.allowed-emails code').getByText('ada@example.com', { exact: true }).waitFor());
  await checkPage(page(), 'tunnel-access');
  await tunnel.getByRole('button', { name: 'Remove @partner.example' }).click();
  await tunnel.locator('.allowed-emails code').getByText('@partner.example', { exact: true }).waitFor({ state: 'detached' });
  const api = await s.request('/api/tunnels', { cookie: await sessionCookieOf(page()) });
  assert.deepEqual(api.json.tunnels.find((t: { subdomain: string }) => t.subdomain === 'weather').allowed_emails, ['ada@example.com']);
  await page().reload();
  const again = page().locator('li.tunnel').filter({ hasText: 'weather' });
  assert.equal(await again.getByRole('switch', { name: 'Require sign-in (OAuth)' }).isChecked(), true, 'kept after reload');
  await again.getByRole('switch', { name: 'Require sign-in (OAuth)' }).uncheck();
  await assert.doesNotReject(page().getByText(`${host} is open to anyone again.`).waitFor());
  assert.equal((await prm()).status, 404);
});

test('an MCP client asks for a protected tunnel: consent in the console, through sign-in too, then Allow or Deny', needsChromium(), async () => {
  const cookie = await sessionCookieOf(page());
  const made = await s.request('/api/tunnels', { method: 'POST', cookie, headers: { origin: s.url }, body: { subdomain: 'vault', access: 'oauth' } });
  assert.equal(made.status, 201, made.text);
  const resource = `https://${made.json.host}/mcp`;
  const callback = 'http://127.0.0.1:9/callback';
  const client = await s.request('/oauth/register', { method: 'POST', body: { client_name: 'Desk Assistant', redirect_uris: [callback], token_endpoint_auth_method: 'none' } });
  assert.equal(client.status, 201, client.text);
  const verifier = 'v'.repeat(50);
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const authorizeUrl = (state: string) =>
    url(`/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.json.client_id, redirect_uri: callback, code_challenge: challenge, code_challenge_method: 'S256', state, scope: 'mcp', resource })}`);
  // The application's redirect target: answered here, so nothing leaves the browser.
  await ctx().context.route('http://127.0.0.1:9/**', (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'back in the application' }));

  await page().goto(authorizeUrl('allow-1'));
  await page().waitForURL((u) => u.pathname === '/oauth/consent');
  await assert.doesNotReject(page().getByRole('heading', { level: 1, name: `Allow Desk Assistant to use ${made.json.host}?` }).waitFor());
  await assert.doesNotReject(main().getByText('127.0.0.1:9', { exact: true }).waitFor());
  await assert.doesNotReject(main().getByText(resource, { exact: true }).waitFor());
  await checkPage(page(), 'consent');
  await main().getByRole('button', { name: 'Allow', exact: true }).click();
  await page().waitForURL((u) => u.href.startsWith(callback));
  const back = new URL(page().url());
  assert.equal(back.searchParams.get('state'), 'allow-1');
  assert.equal(back.searchParams.get('iss'), s.deps.config.baseUrl);
  const tokens = await s.request('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, code_verifier: verifier, redirect_uri: callback, client_id: client.json.client_id, resource }).toString(),
  });
  assert.equal(tokens.status, 200, tokens.text);

  // The owner sees the holder on the tunnel, and the application under Security; revoking it there ends it.
  await page().goto(url('/tunnels'));
  const vault = page().locator('li.tunnel').filter({ hasText: 'vault' });
  await assert.doesNotReject(vault.locator('.holders li').filter({ hasText: `${person.email} with Desk Assistant` }).waitFor());
  await page().goto(url('/security'));
  const apps = page().locator('#authorized-applications');
  await assert.doesNotReject(apps.locator('li.grant').filter({ hasText: 'Desk Assistant' }).waitFor());
  await checkPage(page(), 'authorized-applications');
  await apps.getByRole('button', { name: 'Revoke Desk Assistant' }).click();
  await assert.doesNotReject(apps.getByText('No application has access through your account.').waitFor());
  const refresh = await s.request('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.json.refresh_token, client_id: client.json.client_id }).toString(),
  });
  assert.equal(refresh.json.error, 'invalid_grant', 'revoked from the console');

  // Signed out: the request waits through the sign-in, then Deny.
  await page().goto(url('/account'));
  await signOut(page());
  await page().goto(authorizeUrl('deny-1'));
  await page().waitForURL(url('/sign-in'));
  await page().getByLabel('Email', { exact: true }).fill(person.email);
  await page().getByLabel('Password', { exact: true }).fill(person.password);
  await page().getByRole('button', { name: 'Sign in', exact: true }).click();
  await page().waitForURL((u) => u.pathname === '/oauth/consent');
  await main().getByRole('button', { name: 'Deny', exact: true }).click();
  await page().waitForURL((u) => u.href.startsWith(callback));
  assert.equal(new URL(page().url()).searchParams.get('error'), 'access_denied');
  await page().goto(url('/account'));
});

test('access tokens: created after confirming it is you, shown once, reach the API in their scopes; revoke', needsChromium(), async () => {
  letReauthWindowPass();
  await page().getByRole('link', { name: 'Access tokens' }).click();
  await page().waitForURL(url('/tokens'));
  const form = page().locator('#new-token');
  await form.getByLabel('Name').fill('laptop CLI');
  // tunnels:read and tunnels:write are ticked by default; no expiry for this one.
  await form.getByRole('combobox').selectOption({ label: 'No expiry' });
  await form.getByRole('button', { name: 'Create token' }).click();
  await confirmInDialog(page(), person.password);
  const secret = form.getByRole('textbox', { name: 'The token "laptop CLI"' });
  await secret.waitFor();
  const token = await secret.inputValue();
  assert.match(token, /^tsk_[0-9A-Za-z]{38}$/);
  await assert.doesNotReject(form.getByText('Copy it now: it is not shown again.', { exact: false }).waitFor());
  const row = page().locator('li.token').filter({ hasText: 'laptop CLI' });
  assert.deepEqual(await row.locator('dd.chips code').allTextContents(), ['tunnels:read', 'tunnels:write']);
  await checkPage(page(), 'tokens');
  // The token lists the tunnels made above, and is refused where its scopes do not reach.
  const tunnels = await s.request('/api/tunnels', { bearer: token });
  assert.equal(tunnels.status, 200, tunnels.text);
  assert.ok(tunnels.json.tunnels.some((t: { subdomain: string }) => t.subdomain === 'weather'));
  assert.equal((await s.request('/api/sessions', { bearer: token })).status, 403);
  await page().reload();
  assert.equal(await page().getByRole('textbox', { name: /The token/ }).count(), 0, 'the secret is gone once the page is left');
  await assert.doesNotReject(page().locator('li.token').filter({ hasText: 'laptop CLI' }).getByText(/from 127\.0\.0\.x|from /).waitFor());
  await page().locator('li.token').filter({ hasText: 'laptop CLI' }).getByRole('button', { name: 'Revoke token laptop CLI' }).click();
  await assert.doesNotReject(page().getByText('The token "laptop CLI" is revoked', { exact: false }).waitFor());
  assert.equal((await s.request('/api/tunnels', { bearer: token })).status, 401);
});

test('webhooks: added after confirming it is you, secret shown once; test event, delivery log, retry, disable', needsChromium(), async () => {
  const receiver = await WebhookReceiver.start();
  try {
    letReauthWindowPass();
    await page().getByRole('link', { name: 'Webhooks' }).click();
    await page().waitForURL(url('/webhooks'));
    const form = page().locator('#new-webhook');
    await form.getByLabel('Endpoint URL').fill(`${receiver.url}/console`);
    await form.getByLabel('A tunnel is created').check();
    await form.getByLabel('Description').fill('deploy notifier');
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await confirmInDialog(page(), person.password);
    const secret = form.getByRole('textbox', { name: 'Signing secret' });
    await secret.waitFor();
    assert.match(await secret.inputValue(), /^whsec_[A-Za-z0-9+/]+=*$/);
    const row = page().locator('li.webhook').filter({ hasText: `${receiver.url}/console` });
    await assert.doesNotReject(row.getByText('tunnel.created').waitFor());
    await checkPage(page(), 'webhooks');
    // A test event reaches the receiver and shows in the log with its result: refused first, so
    // the log offers Retry; the retry is delivered and offers none.
    receiver.answer = { status: 500 };
    await row.getByRole('button', { name: `Send a test event to ${receiver.url}/console` }).click();
    await receiver.waitFor(() => receiver.received.length === 1);
    assert.equal(JSON.parse(receiver.received[0]!.body).type, 'webhook.test');
    const log = row.locator('table.deliveries');
    await assert.doesNotReject(log.locator('tr.failed').first().waitFor());
    receiver.answer = { status: 200 };
    await log.getByRole('button', { name: 'Retry webhook.test attempt 1' }).click();
    await receiver.waitFor(() => receiver.received.length === 2);
    assert.equal(receiver.received[1]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id'], 'the same event again');
    // The log reloads itself a second after the retry; shown again (closed and opened) until the attempt is in.
    for (let i = 0; !(await log.getByText('✓ 200').first().isVisible()); i++) {
      assert.ok(i < 20, 'the retried delivery shows in the log');
      await page().waitForTimeout(250);
      if (i % 4 === 3) for (let k = 0; k < 2; k++) await row.getByRole('button', { name: `Show deliveries of ${receiver.url}/console` }).click();
    }
    assert.equal(await log.locator('tr.ok').getByRole('button', { name: /^Retry/ }).count(), 0, 'a delivered event offers no retry');
    await checkPage(page(), 'webhooks-log');
    await row.getByRole('button', { name: `Disable ${receiver.url}/console` }).click();
    await assert.doesNotReject(page().locator('li.webhook').getByText('disabled', { exact: true }).waitFor());
    await page().reload();
    assert.equal(await page().getByRole('textbox', { name: 'Signing secret' }).count(), 0, 'the secret is gone once the page is left');
  } finally {
    await receiver.close();
  }
});

test('connect a device: the CLI link survives signing in; approve (and again after confirming it is you) or deny', needsChromium(), async () => {
  const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
  const cli = (path: string, params: Record<string, string>) =>
    s.request(path, { method: 'POST', body: new URLSearchParams(params).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'tunnel-cli/2.0 (test)' } });
  const startDevice = async () => {
    const r = await cli('/oauth/device_authorization', { client_id: 'tunnel-cli' });
    assert.equal(r.status, 200, r.text);
    return r.json as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string };
  };
  const poll = (d: { device_code: string }) => cli('/oauth/token', { grant_type: GRANT, device_code: d.device_code, client_id: 'tunnel-cli' });

  // Signed out, the CLI's complete link goes through sign-in and comes back with its code.
  await signOut(page());
  const first = await startDevice();
  assert.equal(first.verification_uri, url('/device'));
  await page().goto(first.verification_uri_complete);
  await page().waitForURL(url('/sign-in'));
  await page().getByLabel('Email', { exact: true }).fill(person.email);
  await page().getByLabel('Password', { exact: true }).fill(person.password);
  await page().getByRole('button', { name: 'Sign in', exact: true }).click();
  await page().waitForURL(url('/device'));
  const request = main().locator('.device-request');
  await assert.doesNotReject(request.getByText('Tunnel CLI', { exact: true }).waitFor());
  await assert.doesNotReject(request.getByText(first.user_code, { exact: true }).waitFor());
  await assert.doesNotReject(request.getByText('Create, change and delete your tunnels').waitFor());
  await assert.doesNotReject(request.getByText('127.0.0.x', { exact: true }).waitFor());
  await assert.doesNotReject(request.getByText('tunnel-cli/2.0 (test)', { exact: true }).waitFor());
  assert.equal(new URL(page().url()).search, '', 'the code is taken out of the address bar');
  await checkPage(page(), 'device');
  assert.equal((await poll(first)).json.error, 'authorization_pending');
  await main().getByRole('button', { name: 'Approve', exact: true }).click();
  await assert.doesNotReject(main().getByText('Device connected. You can go back to your terminal.').waitFor());
  const issued = await poll(first);
  assert.equal(issued.status, 200, issued.text);
  assert.match(issued.json.access_token, /^tsk_/);
  assert.equal((await s.request('/api/tunnels', { bearer: issued.json.access_token })).status, 200);

  // Typed by hand (case and dash do not matter), then denied.
  const second = await startDevice();
  await page().getByLabel('Code', { exact: true }).fill(second.user_code.replace('-', '').toLowerCase());
  await main().getByRole('button', { name: 'Continue', exact: true }).click();
  await main().getByRole('button', { name: 'Deny', exact: true }).click();
  await assert.doesNotReject(main().getByText('Denied: the device was not signed in.').waitFor());
  assert.equal((await poll(second)).json.error, 'access_denied');

  // A wrong code is explained; once the recent sign-in is over, approving asks who you are first.
  await page().getByLabel('Code', { exact: true }).fill('BCDF-GHJK');
  await main().getByRole('button', { name: 'Continue', exact: true }).click();
  await assert.doesNotReject(page().getByText('No sign-in request has this code', { exact: false }).waitFor());
  letReauthWindowPass();
  const third = await startDevice();
  await page().getByLabel('Code', { exact: true }).fill(third.user_code);
  await main().getByRole('button', { name: 'Continue', exact: true }).click();
  await main().getByRole('button', { name: 'Approve', exact: true }).click();
  await confirmInDialog(page(), person.password);
  await assert.doesNotReject(main().getByText('Device connected. You can go back to your terminal.').waitFor());
  assert.equal((await poll(third)).status, 200);

  // Both devices' tokens are listed with the rest, named after the CLI.
  await page().getByRole('link', { name: 'Access tokens' }).click();
  await page().waitForURL(url('/tokens'));
  await assert.doesNotReject(page().locator('li.token').filter({ hasText: 'Tunnel CLI (tunnel-cli/2.0 (test))' }).first().waitFor());
  assert.equal(await page().locator('li.token').filter({ hasText: 'Tunnel CLI (tunnel-cli/2.0 (test))' }).count(), 2);
});

test('sessions: this browser is marked, another session is revoked, and the activity pages back in time', needsChromium(), async () => {
  // Another device signs in 11 times (REST), so the activity holds more than one page.
  let other = '';
  for (let i = 0; i < 11; i++) {
    const r = await s.request('/auth/login', { method: 'POST', body: { email: person.email, password: person.password }, headers: { 'user-agent': `OtherDevice/${i}` } });
    assert.equal(r.status, 200);
    other = r.json.token;
  }
  await page().getByRole('link', { name: 'Security' }).click();
  await page().waitForURL(url('/security'));
  const sessions = page().locator('#sessions');
  await assert.doesNotReject(sessions.getByText('This browser').waitFor());
  assert.equal(await sessions.locator('li.current').count(), 1);
  // Browsers are named as people read them; a client the console does not know shows as sent.
  assert.match((await sessions.locator('li.current strong').textContent()) ?? '', /^Headless Chrome \d+ on Linux$/);
  assert.equal(await sessions.locator('li').first().getAttribute('class'), 'row current', 'this browser comes first');
  await assert.doesNotReject(sessions.getByText('OtherDevice/3', { exact: true }).waitFor());
  await checkPage(page(), 'security');
  const row = sessions.locator('li').filter({ hasText: 'OtherDevice/10' });
  await row.getByRole('button', { name: /^Revoke the session/ }).click();
  await assert.doesNotReject(sessions.getByText('That session is signed out.').waitFor());
  await row.waitFor({ state: 'detached' });
  assert.equal((await s.request('/api/account', { bearer: other })).status, 401, 'the revoked session is over');

  const activity = page().locator('#activity');
  await page().reload();
  await page().waitForFunction(() => document.querySelectorAll('#activity li').length === 10);
  // Pages of 10, back to the first event.
  const older = activity.getByRole('button', { name: 'Show older' });
  for (let shown = 10; await older.isVisible(); shown += 10) {
    assert.ok(shown < 100, 'the activity ends');
    await older.click();
    await page().waitForFunction((n) => document.querySelectorAll('#activity li').length > n || !document.querySelector('#activity-more:not([hidden])'), shown);
  }
  assert.ok((await activity.locator('li').count()) > 10);
  assert.match((await activity.textContent()) ?? '', /Signed in with password/);
  assert.match((await activity.textContent()) ?? '', /Session revoked/);
  assert.match((await activity.textContent()) ?? '', /Password changed/);
});

test('linked providers: Link Google goes through the provider and back; unlink', needsChromium(), async () => {
  const providers = page().locator('#providers');
  fake.google.user = fakeUser(`g-${person.email}`);
  fake.google.deny = false;
  // Long after the sign-in: linking asks to confirm it is you first, then goes on by itself.
  letReauthWindowPass();
  await providers.getByRole('link', { name: 'Link Google' }).click();
  await confirmInDialog(page(), person.password, 'security-reauth-dialog');
  await page().waitForURL(url('/security'));
  await assert.doesNotReject(page().getByText('Google is now linked to your account.').waitFor());
  await assert.doesNotReject(providers.getByText(`g-${person.email}`, { exact: false }).waitFor());
  await providers.getByRole('button', { name: 'Unlink Google' }).click();
  await assert.doesNotReject(page().getByText('Google is no longer linked.').waitFor());
  assert.equal(await providers.getByRole('link', { name: 'Link Google' }).count(), 1);
  await page().reload();
  const newest = page().locator('#activity li');
  await newest.first().waitFor();
  assert.match((await newest.nth(0).textContent()) ?? '', /^Provider unlinked \(Google\)/);
  assert.match((await newest.nth(1).textContent()) ?? '', /^Provider linked \(Google\)/);
});

test('passkeys: add one (virtual authenticator), rename it, sign out, sign in with it, delete it', needsChromium(), async () => {
  const cdp = await ctx().context.newCDPSession(page());
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  const passkeys = page().locator('#passkeys');
  await assert.doesNotReject(passkeys.getByText('No passkey yet.').waitFor());
  // Closing the confirmation changes nothing; confirming adds the passkey without a second click.
  letReauthWindowPass();
  await passkeys.getByRole('button', { name: 'Add a passkey' }).click();
  const dialog = page().getByRole('dialog', { name: 'Confirm it’s you' });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await assert.doesNotReject(passkeys.getByText('Cancelled: nothing was changed.').waitFor());
  await passkeys.getByRole('button', { name: 'Add a passkey' }).click();
  await confirmInDialog(page(), person.password);
  await assert.doesNotReject(passkeys.getByText('The passkey is added.', { exact: false }).waitFor());
  const row = passkeys.locator('li.row').first();
  const name = (await row.locator('strong').textContent()) ?? '';
  await row.getByRole('button', { name: `Rename passkey ${name}` }).click();
  await passkeys.getByLabel('Passkey name').fill('Test laptop');
  await passkeys.getByRole('button', { name: 'Save' }).click();
  await assert.doesNotReject(passkeys.locator('li strong').getByText('Test laptop', { exact: true }).waitFor());
  await checkPage(page(), 'security-passkeys');

  await signOut(page());
  await assert.doesNotReject(page().getByText('You are signed out.').waitFor());
  await page().getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page().waitForURL(url('/account'));
  await page().getByRole('link', { name: 'Security' }).click();
  await assert.doesNotReject(page().locator('#sessions li.current').getByText('passkey', { exact: false }).waitFor());
  await page().locator('#passkeys').getByRole('button', { name: 'Delete passkey Test laptop' }).click();
  await assert.doesNotReject(page().getByText('The passkey "Test laptop" is deleted.').waitFor());
  await cdp.detach();
});

test('two-step sign-in: set up with the QR code, recovery codes shown once; sign-in asks at /mfa; regenerate; turn off', needsChromium(), async () => {
  const twoStep = page().locator('#two-step');
  await assert.doesNotReject(twoStep.getByText('Two-step sign-in is off.', { exact: false }).waitFor());
  await twoStep.getByLabel('Current password').fill(person.password);
  await twoStep.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const qr = twoStep.getByRole('img', { name: 'QR code to add this account to an authenticator app' });
  await qr.waitFor();
  assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/svg\+xml/);
  assert.ok(((await qr.boundingBox())?.width ?? 0) > 100, 'the QR code is drawn');
  const secret = (await twoStep.locator('#totp-secret').textContent()) ?? '';
  assert.match(secret, /^[A-Z2-7]{16,}$/);
  await twoStep.getByLabel('Code from the app').fill('000000');
  await twoStep.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
  await twoStep.locator('.status.error').waitFor();
  await checkPage(page(), 'security-totp-setup');
  await twoStep.getByLabel('Code from the app').fill(freshCode(s, secret));
  await twoStep.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
  const codes = twoStep.locator('#recovery-codes ol.codes li');
  await codes.first().waitFor();
  assert.equal(await codes.count(), 10);
  const recovery = ((await codes.allTextContents()) as string[]).map((c) => c.trim());
  await checkPage(page(), 'security-recovery-codes');
  await twoStep.getByRole('button', { name: 'I have saved these codes' }).click();
  await assert.doesNotReject(twoStep.getByText('Recovery codes left: 10.', { exact: false }).waitFor());
  // The activity below shows the change without a reload.
  await assert.doesNotReject(page().locator('#activity li').first().getByText('Two-step sign-in turned on').waitFor());

  // Password sign-in now stops at /mfa; a wrong code is explained, a right one signs in.
  await signOut(page());
  await page().getByLabel('Email', { exact: true }).fill(person.email);
  await page().getByLabel('Password', { exact: true }).fill(person.password);
  await page().getByRole('button', { name: 'Sign in', exact: true }).click();
  await page().waitForURL(url('/mfa'));
  await checkPage(page(), 'mfa');
  await page().getByLabel('Code').fill('123456');
  await page().getByRole('button', { name: 'Verify' }).click();
  await assert.doesNotReject(page().getByText('That code is not right.', { exact: false }).waitFor());
  await page().getByLabel('Code').fill(freshCode(s, secret));
  await page().getByRole('button', { name: 'Verify' }).click();
  await page().waitForURL(url('/account'));

  // A recovery code works once as the second step.
  await signOut(page());
  await page().getByLabel('Email', { exact: true }).fill(person.email);
  await page().getByLabel('Password', { exact: true }).fill(person.password);
  await page().getByRole('button', { name: 'Sign in', exact: true }).click();
  await page().waitForURL(url('/mfa'));
  await page().getByLabel('Code').fill(recovery[0]!);
  await page().getByRole('button', { name: 'Verify' }).click();
  await page().waitForURL(url('/account'));
  await page().getByRole('link', { name: 'Security' }).click();
  await assert.doesNotReject(twoStep.getByText('Recovery codes left: 9.', { exact: false }).waitFor());
  await assert.doesNotReject(page().locator('#sessions li.current').getByText('password', { exact: false }).waitFor());

  const regenerate = twoStep.locator('#regenerate-codes');
  letReauthWindowPass();
  await regenerate.getByLabel('Current password').fill(person.password);
  await regenerate.getByLabel('Code from your app, or a recovery code').fill(freshCode(s, secret));
  await regenerate.getByRole('button', { name: 'Make new recovery codes' }).click();
  // The dialog offers the code too (two-step is on); the password confirms it here.
  await page().getByRole('dialog', { name: 'Confirm it’s you' }).getByLabel('Code from your app, or a recovery code').waitFor();
  await confirmInDialog(page(), person.password);
  await codes.first().waitFor();
  const fresh = ((await codes.allTextContents()) as string[]).map((c) => c.trim());
  assert.equal(fresh.length, 10);
  assert.ok(!fresh.includes(recovery[1]!), 'new codes');
  await twoStep.getByRole('button', { name: 'I have saved these codes' }).click();
  await assert.doesNotReject(twoStep.getByText('Recovery codes left: 10.', { exact: false }).waitFor());

  const disable = twoStep.locator('#disable-totp');
  await disable.getByLabel('Current password').fill(person.password);
  await disable.getByLabel('Code from your app, or a recovery code').fill(freshCode(s, secret));
  await disable.getByRole('button', { name: 'Turn off two-step sign-in' }).click();
  await assert.doesNotReject(twoStep.locator('.status.ok').getByText('Two-step sign-in is off.').waitFor());
  await assert.doesNotReject(page().locator('#activity li').first().getByText('Two-step sign-in turned off').waitFor());
});

test('GraphiQL renders from local assets under its CSP and runs the example { me { email } }', needsChromium(), async () => {
  const r = await s.request('/graphql', { headers: { accept: 'text/html' } });
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-security-policy']), /script-src 'self';/);
  assert.doesNotMatch(r.text, /(src|href)="(https?:)?\/\//i, 'no CDN');
  const gq = await ctx().context.newPage();
  await gq.goto(url('/graphql'), { waitUntil: 'load' });
  await gq.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
  await gq.locator('.graphiql-editor').first().getByText('email').first().waitFor();
  await gq.locator('.graphiql-execute-button').click();
  const result = gq.locator('.graphiql-response');
  await result.getByText(person.email, { exact: false }).waitFor({ timeout: 30_000 });
  await screenshots(gq, 'graphiql');
  await gq.close();
});

test('forgot password: the email link opens the reset page, the new password signs in', needsChromium(), async () => {
  await signOut(page());
  await page().getByLabel('Email', { exact: true }).fill(person.email);
  await page().getByLabel('Password', { exact: true }).fill('wrong password!');
  await page().getByRole('button', { name: 'Sign in', exact: true }).click();
  await assert.doesNotReject(page().getByText('That email and password do not match an account.').waitFor());
  await page().getByRole('link', { name: 'Forgot your password?' }).click();
  // The page renders after an await: until its heading shows, 'Email' is still the sign-in
  // form's field, and filling it would leave the forgot form empty (seen under load).
  await page().getByRole('heading', { level: 1, name: 'Forgot your password?' }).waitFor();
  await page().getByLabel('Email', { exact: true }).fill(person.email);
  await page().getByRole('button', { name: 'Send the link' }).click();
  // Whatever the status line says first (the answer, or an error such as a limit), so that a
  // failure shows the page's own words rather than a bare timeout.
  const said = page().getByRole('status').filter({ hasText: /\S/ });
  await said.waitFor();
  assert.equal(await said.textContent(), `If ${person.email} has an account, a link to choose a new password is on its way. Check your inbox.`);
  const mail = await s.smtp.waitFor(person.email, 'reset-password');
  const reset = await ctx().context.newPage();
  await reset.goto(mail.links.find((l) => l.includes('/reset-password?token='))!);
  await checkPage(reset, 'link-reset-password');
  person.password = 'a brand new passphrase';
  await reset.getByLabel('New password (8 to 128 characters)').fill(person.password);
  await reset.getByLabel('Repeat it').fill(person.password);
  await reset.getByRole('button', { name: 'Set password' }).click();
  await assert.doesNotReject(reset.getByText('Your password is set.', { exact: false }).waitFor());
  await reset.close();
  await signIn(page(), person.email, person.password);
});

test('an SSO-only account: GitHub sign-up lands in the console; unlinking its only method shows the last-method message', needsChromium(), async () => {
  const { context, watch } = await newContext(browser(), { phone: true });
  try {
    const p = await context.newPage();
    const email = uniqueEmail('gh');
    const githubUser = fakeUser(email);
    fake.github.user = githubUser;
    fake.github.deny = false;
    await p.goto(url('/sign-in'));
    await p.getByRole('link', { name: 'Sign in with GitHub' }).click();
    await p.waitForURL(url('/account'));
    await assert.doesNotReject(p.locator('#profile').getByText(email).waitFor());
    assert.match((await p.locator('#password').textContent()) ?? '', /no password yet/);
    await p.getByRole('link', { name: 'Security' }).click();
    await assert.doesNotReject(p.locator('#providers').getByText('Your account has no password: you sign in with the providers below.').waitFor());
    // One page of activity: no "Show older" to press.
    await p.locator('#activity li').first().waitFor();
    assert.equal(await p.locator('#activity').getByRole('button', { name: 'Show older' }).isVisible(), false);
    await p.locator('#providers').getByRole('button', { name: 'Unlink GitHub' }).click();
    await assert.doesNotReject(p.locator('#providers .status.error').getByText('set a password', { exact: false }).waitFor());
    await checkPage(p, 'security-sso-only');

    // Long after the sign-in, adding a passkey asks to confirm it is you: with neither password
    // nor two-step, the dialog sends the person through GitHub, and the add goes on on return.
    const cdp = await context.newCDPSession(p);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    letReauthWindowPass();
    await p.locator('#passkeys').getByRole('button', { name: 'Add a passkey' }).click();
    const dialog = p.getByRole('dialog', { name: 'Confirm it’s you' });
    await dialog.waitFor();
    assert.equal(await dialog.getByLabel('Password', { exact: true }).count(), 0, 'no password to ask for');
    await checkPage(p, 'security-reauth-provider');
    fake.github.user = githubUser;
    await dialog.getByRole('link', { name: 'Continue with GitHub' }).click();
    await p.waitForURL(url('/security'));
    await assert.doesNotReject(p.getByText('Confirmed with GitHub.', { exact: false }).waitFor());
    await assert.doesNotReject(p.locator('#passkeys').getByText('The passkey is added.', { exact: false }).waitFor());
    await assert.doesNotReject(p.locator('#activity li').getByText('Confirmed it was you with GitHub').first().waitFor());
    await cdp.detach();

    // Two-step on for an account without a password (no password asked); the next GitHub
    // sign-in lands on /mfa?token=… and the code finishes it.
    const twoStep = p.locator('#two-step');
    assert.equal(await twoStep.getByLabel('Current password').count(), 0);
    await twoStep.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = (await twoStep.locator('#totp-secret').textContent()) ?? '';
    await twoStep.getByLabel('Code from the app').fill(freshCode(s, secret));
    await twoStep.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    await twoStep.getByRole('button', { name: 'I have saved these codes' }).click();
    await signOut(p);
    await p.getByRole('link', { name: 'Sign in with GitHub' }).click();
    await p.waitForURL((u) => u.pathname === '/mfa');
    await p.getByRole('heading', { level: 1, name: 'Second step' }).waitFor();
    assert.equal(new URL(p.url()).search, '', 'the mfa token left the address bar');
    await p.getByLabel('Code').fill(freshCode(s, secret));
    await p.getByRole('button', { name: 'Verify' }).click();
    await p.waitForURL(url('/account'));
    await assert.doesNotReject(p.locator('#profile').getByText(email).waitFor());

    // New recovery codes and turning two-step off ask no password of it either: the code alone.
    await p.getByRole('link', { name: 'Security' }).click();
    const regenerate = twoStep.locator('#regenerate-codes');
    await regenerate.waitFor();
    assert.equal(await regenerate.getByLabel('Current password').count(), 0);
    await regenerate.getByLabel('Code from your app, or a recovery code').fill(freshCode(s, secret));
    await regenerate.getByRole('button', { name: 'Make new recovery codes' }).click();
    await twoStep.locator('#recovery-codes ol.codes li').first().waitFor();
    await twoStep.getByRole('button', { name: 'I have saved these codes' }).click();
    const disable = twoStep.locator('#disable-totp');
    assert.equal(await disable.getByLabel('Current password').count(), 0);
    await disable.getByLabel('Code from your app, or a recovery code').fill(freshCode(s, secret));
    await disable.getByRole('button', { name: 'Turn off two-step sign-in' }).click();
    await assert.doesNotReject(twoStep.locator('.status.ok').getByText('Two-step sign-in is off.').waitFor());

    // A cancelled provider sign-in comes back to the sign-in page with an explanation.
    await signOut(p);
    fake.google.deny = true;
    await p.getByRole('link', { name: 'Sign in with Google' }).click();
    await assert.doesNotReject(p.getByText('Google: The sign-in was cancelled at the provider.', { exact: false }).waitFor());
    fake.google.deny = false;
    assertClean(watch);
  } finally {
    await context.close();
  }
});

test('link-account: a provider identity with the email of a password account asks for the password, then signs in', needsChromium(), async () => {
  const { context, watch } = await newContext(browser());
  try {
    const p = await context.newPage();
    fake.google.user = fakeUser(person.email);
    await p.goto(url('/sign-in'));
    await p.getByRole('link', { name: 'Sign in with Google' }).click();
    await p.waitForURL((u) => u.pathname === '/link-account');
    await assert.doesNotReject(p.getByText(`to your account ${person.email}`, { exact: false }).waitFor());
    await checkPage(p, 'link-account');
    await p.getByLabel('Password of your account').fill(person.password);
    await p.getByRole('button', { name: 'Link and sign in' }).click();
    await assert.doesNotReject(p.getByText('The accounts are linked and you are signed in.').waitFor());
    await p.getByRole('link', { name: 'Go to your account' }).click();
    await p.waitForURL(url('/account'));
    await p.getByRole('link', { name: 'Security' }).click();
    await assert.doesNotReject(p.locator('#providers').getByRole('button', { name: 'Unlink Google' }).waitFor());
    assertClean(watch);
  } finally {
    await context.close();
  }
});

test('sign out everywhere ends this session too', needsChromium(), async () => {
  await page().getByRole('link', { name: 'Security' }).click();
  await page().getByRole('button', { name: 'Sign out everywhere' }).click();
  await page().waitForURL(url('/sign-in'));
  await assert.doesNotReject(page().getByText('Every session of your account is signed out, this one included.').waitFor());
  await page().goto(url('/account'));
  await page().waitForURL(url('/sign-in'));
});

test('keyboard only: the skip link, then Tab to each field with a visible focus ring, Enter signs in', needsChromium(), async () => {
  const p = page();
  await p.goto(url('/sign-in'));
  await p.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  // The page's heading has focus after each navigation: the next Tab is the first field.
  assert.equal(await p.evaluate(() => document.activeElement?.textContent), 'Sign in');
  const focused = () => p.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const style = getComputedStyle(el);
    return { label: (el as HTMLInputElement).labels?.[0]?.textContent ?? el.textContent, outline: style.outlineStyle, width: parseFloat(style.outlineWidth) };
  });
  await p.keyboard.press('Shift+Tab');
  await p.keyboard.press('Shift+Tab');
  assert.equal((await focused()).label, 'Skip to content');
  assert.ok(((await p.locator('a.skip').boundingBox())?.x ?? -1) >= 0, 'the skip link shows when focused');
  await p.keyboard.press('Enter');
  await p.keyboard.press('Tab');
  let f = await focused();
  assert.equal(f.label, 'Email');
  assert.ok(f.outline !== 'none' && f.width >= 2, `a visible focus ring (${f.outline} ${f.width}px)`);
  await p.keyboard.type(person.email);
  await p.keyboard.press('Tab');
  f = await focused();
  assert.equal(f.label, 'Password');
  await p.keyboard.type(person.password);
  await p.keyboard.press('Tab');
  f = await focused();
  assert.equal(f.label, 'Sign in');
  assert.ok(f.outline !== 'none' && f.width >= 2, 'the button shows focus too');
  await p.keyboard.press('Enter');
  await p.waitForURL(url('/account'));
  await p.getByRole('heading', { level: 1, name: 'Your account' }).waitFor();
  assert.equal(await p.evaluate(() => document.activeElement?.textContent), 'Your account', 'focus moves to the new page heading');
});

test('delete account: the typed email must match; then the account is gone', needsChromium(), async () => {
  const del = page().locator('#delete');
  await del.getByLabel('Type your email to confirm').fill('someone@else.example');
  await del.getByLabel('Password', { exact: true }).fill(person.password);
  await del.getByRole('button', { name: 'Delete my account' }).click();
  await assert.doesNotReject(del.getByText(`Type ${person.email} exactly to confirm.`).waitFor());
  await del.getByLabel('Type your email to confirm').fill(person.email);
  await del.getByLabel('Password', { exact: true }).fill('not the password');
  await del.getByRole('button', { name: 'Delete my account' }).click();
  await assert.doesNotReject(del.getByText('That is not your password.').waitFor());
  await del.getByLabel('Password', { exact: true }).fill(person.password);
  await del.getByRole('button', { name: 'Delete my account' }).click();
  await page().waitForURL(url('/sign-in'));
  await assert.doesNotReject(page().getByText('Your account is deleted.', { exact: false }).waitFor());
  const r = await s.request('/auth/login', { method: 'POST', body: { email: person.email, password: person.password } });
  assert.equal(r.status, 401);
});

test('afterwards: no request left loopback, no CSP violation, no script error', needsChromium(), () => {
  assertClean(ctx().watch);
});

