// Every page a newcomer meets, at a phone's width and a desktop's, in headless Chromium: the
// console's pages with the data each needs (tunnels, a token, webhooks with a delivered and a
// failed delivery, two-step sign-in on), the consent and device pages, GraphiQL and the status
// page, and an organization's pages (the switcher open, a long name). A page fails when it
// scrolls sideways, when a navigation item is cut off, or when text overflows its box (cut off by
// a box that hides overflow, or past the viewport). Along the way, what a newcomer does there:
// errors shown beside their field and gone when it changes or on success, a long pasted name
// refused with its reason, the confirmation dialog naming the action, Retry only on failed
// deliveries, activity in words, the same MCP URL as the card link, one date format. With
// SCREENSHOT_DIR set, each page is saved there at both widths.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { PASSWORD, signedIn, type SignedIn } from '../../support/accounts.js';
import { useFixture } from '../../support/fixture.js';
import { REDIRECT, pkce, register } from '../../support/oauth.js';
import { freePort } from '../../support/programs.js';
import { useServer } from '../../support/server.js';
import { enableTwoStep } from '../../support/totp.js';
import { addMember, uniqueOrgSlug } from '../../support/orgs.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import { assertClean, needsChromium, newContext, useBrowser } from './browser.js';

const ZONE = 'tunnels.localhost';
const SCREENSHOT_DIR = process.env.SCREENSHOT_DIR;
/** A small phone, the phone the issue was seen on, and a desktop. */
const WIDTHS = [360, 390, 1280];
const SHOT_WIDTHS = new Set([390, 1280]);

const port = useFixture(() => freePort(), async () => {}, needsChromium());
const receiver = useFixture(() => WebhookReceiver.start(), (r) => r.close(), needsChromium());
const s = useServer(
  () => {
    const origin = `http://localhost:${port()}`;
    return { port: port(), env: { BASE_URL: origin, APP_URL: origin, WEBHOOK_ALLOW_PRIVATE: 'true' } };
  },
  needsChromium(),
);
const browser = useBrowser();
const ctx = useFixture(
  async () => {
    const { context, watch } = await newContext(browser());
    // The OAuth application's redirect target: answered here, so the browser stays on loopback.
    await context.route(`${new URL(REDIRECT).origin}/**`, (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'back in the application' }));
    return { context, watch, page: await context.newPage() };
  },
  async (c) => c.context.close(),
  needsChromium(),
);
const page = (): Page => ctx().page;
const url = (path: string) => `${s.url}${path}`;
const main = () => page().locator('main');
let person: SignedIn;

/**
 * What is wrong with the layout as the page stands: sideways scrolling, cut-off nav items,
 * overflowing text. Page-side code as a string: the test runner's transform would add helpers
 * the page does not have.
 */
const LAYOUT_PROBLEMS = `(() => {
  const out = [];
  const vw = document.documentElement.clientWidth;
  const root = document.scrollingElement;
  if (root.scrollWidth > root.clientWidth) out.push('the page scrolls sideways (' + root.scrollWidth + ' > ' + root.clientWidth + ')');
  function name(el) {
    const cls = typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '';
    return el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + cls + ' "' + (el.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 40) + '"';
  }
  for (const a of document.querySelectorAll('header nav a')) {
    const r = a.getBoundingClientRect();
    if (r.left < -0.5 || r.right > vw + 0.5) out.push('nav item off-screen: ' + name(a));
    if (a.scrollWidth > a.clientWidth + 1) out.push('nav item cut off: ' + name(a));
    for (let p = a.parentElement; p; p = p.parentElement) {
      if (getComputedStyle(p).overflowX === 'visible') continue;
      const box = p.getBoundingClientRect();
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5) out.push('nav item hidden by ' + name(p) + ': ' + name(a));
    }
  }
  for (const el of document.body.querySelectorAll('*')) {
    // Hidden on purpose (screen-reader text, the skip link until focused) or scrolling by design
    // (an editor; a text field, whose long value scrolls inside it).
    if (el.closest('.visually-hidden, .skip, .monaco-editor, script, style, noscript, input, select, textarea')) continue;
    const r = el.getBoundingClientRect();
    // Nothing to see, or parked wholly left of the page for screen readers (it cannot scroll into view).
    if ((r.width === 0 && r.height === 0) || r.right <= 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden') continue;
    if (r.left < -0.5 || r.right > vw + 0.5) out.push('past the viewport (' + Math.round(r.left) + ' to ' + Math.round(r.right) + ' of ' + vw + '): ' + name(el));
    if ((style.overflowX === 'hidden' || style.overflowX === 'clip') && el.scrollWidth > el.clientWidth + 1) out.push('text cut off (' + el.scrollWidth + ' > ' + el.clientWidth + '): ' + name(el));
  }
  return out.slice(0, 12);
})()`;

/** The page fits each width (and is saved at both when SCREENSHOT_DIR is set); back at 1280 px after. */
async function fits(p: Page, name: string): Promise<void> {
  for (const width of WIDTHS) {
    await p.setViewportSize({ width, height: width < 800 ? 844 : 800 });
    await p.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    if (SCREENSHOT_DIR && SHOT_WIDTHS.has(width)) {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await p.screenshot({ path: join(SCREENSHOT_DIR, `${name}-${width}.png`), fullPage: true });
    }
    assert.deepEqual(await p.evaluate<string[]>(LAYOUT_PROBLEMS), [], `${name} at ${width} px`);
  }
  await p.setViewportSize({ width: 1280, height: 800 });
}

/** The error shown beside a field: its text, and the input marked invalid and described by it. */
async function fieldError(box: ReturnType<Page['locator']>): Promise<string> {
  const error = box.locator('.field-error');
  await error.waitFor();
  const id = await error.getAttribute('id');
  const input = box.locator('input, select').first();
  assert.equal(await input.getAttribute('aria-invalid'), 'true');
  const describedBy = (await input.getAttribute('aria-describedby')) ?? (await box.getAttribute('aria-describedby')) ?? '';
  assert.ok(describedBy.split(' ').includes(id!), `the field is described by its error (${describedBy})`);
  return (await error.textContent()) ?? '';
}

/** The session's recent sign-in is over: the server's clock moves past the window. */
const letReauthWindowPass = () => s.clock.advance(11 * 60_000);

async function confirmInDialog(p: Page, why: string): Promise<void> {
  const dialog = p.getByRole('dialog', { name: 'Confirm it’s you' });
  await dialog.waitFor();
  assert.equal(await dialog.locator('#reauth-why').textContent(), `${why} Confirm it is you, and you can go on for the next few minutes.`);
  await dialog.getByLabel('Password', { exact: true }).fill(person.password);
  await dialog.getByRole('button', { name: 'Confirm', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

test('signed out: sign-in, sign-up (its error beside the field) and forgot password fit', needsChromium(), async () => {
  person = await signedIn(s, { verified: true, password: PASSWORD });
  const p = page();
  await p.goto(url('/sign-in'));
  await p.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await fits(p, 'sign-in');
  await p.goto(url('/sign-up'));
  await p.getByLabel('Email', { exact: true }).fill(person.email);
  await p.getByLabel('Password', { exact: true }).fill('short');
  await p.getByRole('button', { name: 'Create account' }).click();
  const password = main().locator('.field').filter({ has: p.getByLabel('Password', { exact: true }) });
  assert.equal(await fieldError(password), 'The password needs at least 8 characters.');
  await p.getByLabel('Password', { exact: true }).fill(PASSWORD);
  assert.equal(await password.locator('.field-error').isVisible(), false, 'typing takes the error away');
  await p.getByRole('button', { name: 'Create account' }).click();
  const email = main().locator('.field').filter({ has: p.getByLabel('Email', { exact: true }) });
  assert.equal(await fieldError(email), 'An account with this email already exists.', 'the server’s error, beside its field');
  await fits(p, 'sign-up');
  await p.goto(url('/forgot-password'));
  await p.getByRole('heading', { level: 1, name: 'Forgot your password?' }).waitFor();
  await fits(p, 'forgot-password');
});

test('account: the navigation wraps instead of scrolling; a refused slug is explained beside its field', needsChromium(), async () => {
  const p = page();
  await p.goto(url('/sign-in'));
  await p.getByLabel('Email', { exact: true }).fill(person.email);
  await p.getByLabel('Password', { exact: true }).fill(person.password);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
  await p.waitForURL(url('/account'));
  const slug = p.locator('#slug');
  await slug.getByLabel('New slug').fill('admin');
  await slug.getByRole('button', { name: 'Rename' }).click();
  assert.equal(await fieldError(slug.locator('.field')), 'That slug is reserved.');
  assert.equal(await slug.locator('.status.error').count(), 0, 'the error is beside the field, not far from it');
  await fits(p, 'account');
  await slug.getByLabel('New slug').press('End');
  await slug.getByLabel('New slug').press('Backspace');
  assert.equal(await slug.locator('.field-error').isVisible(), false);
  assert.equal(await slug.getByLabel('New slug').getAttribute('aria-invalid'), null);
});

test('tunnels: a pasted 60-character name is refused with its reason, not cut and created; a duplicate names the subdomain; the MCP URL matches the card link', needsChromium(), async () => {
  const p = page();
  await p.getByRole('link', { name: 'Tunnels' }).click();
  await p.waitForURL(url('/tunnels'));
  const form = p.locator('#new-tunnel');
  const subdomain = form.locator('.field').filter({ has: p.getByLabel('Subdomain') });
  const long = 'a'.repeat(60);
  await form.getByLabel('Subdomain').fill(long);
  assert.equal(await form.getByLabel('Subdomain').inputValue(), long, 'nothing is cut off silently');
  await form.getByRole('button', { name: 'Create tunnel' }).click();
  assert.equal(await fieldError(subdomain), 'The subdomain must be 1 to 33 characters long; this one has 60.');
  const listed = await s.request('/api/tunnels', { bearer: person.token });
  assert.deepEqual(listed.json.tunnels, [], 'nothing was created');

  await form.getByLabel('Subdomain').fill('weather');
  assert.equal(await subdomain.locator('.field-error').isVisible(), false, 'changing the field takes its error away');
  await form.getByRole('button', { name: 'Create tunnel' }).click();
  const host = `weather--${person.slug}.${ZONE}`;
  await main().getByText(`The tunnel ${host} is created.`, { exact: false }).waitFor();
  await form.getByLabel('Subdomain').fill('weather');
  await form.getByRole('button', { name: 'Create tunnel' }).click();
  assert.equal(await fieldError(subdomain), 'You already have a tunnel with that subdomain.');
  assert.equal(await main().locator('.status.ok').count(), 0, 'the earlier success is not left beside the new error');

  // The second tunnel, protected, with people allowed and a custom domain (made over the API).
  const vault = await s.request('/api/tunnels', {
    method: 'POST',
    bearer: person.token,
    body: { subdomain: 'vault-for-the-partner-team', access: 'oauth', allowed_emails: ['ada.lovelace@analytical-engines.example', '@partner.example'], custom_domain: 'mcp.a-rather-long-company-name.example' },
  });
  assert.equal(vault.status, 201, vault.text);
  await p.reload();
  const weather = p.locator('li.tunnel').filter({ hasText: host });
  const card = await weather.getByRole('link', { name: /Open the live Server Card/ }).getAttribute('href');
  const origin = `http://${host}:${port()}`;
  assert.equal(card, `${origin}/.well-known/mcp/server-card.json`);
  assert.equal((await weather.locator('.mcp-endpoint').textContent())?.trim(), `${origin}/mcp`, 'the MCP URL is reached the way the card is, port included');
  const allowed = p.locator('li.tunnel').filter({ hasText: 'vault-for-the-partner-team' });
  await allowed.getByLabel('Allow an address or a whole @domain').fill('not an address');
  await allowed.getByRole('button', { name: 'Allow', exact: true }).click();
  assert.equal(await fieldError(allowed.locator('.add-email .field')), '"not an address" is not an email address or @domain.');
  await fits(p, 'tunnels');
});

test('access tokens: the dialog names the action; a missing scope is shown beside Scopes, and gone after the token is made', needsChromium(), async () => {
  const p = page();
  await p.getByRole('link', { name: 'Access tokens' }).click();
  await p.waitForURL(url('/tokens'));
  const form = p.locator('#new-token');
  await form.getByLabel('Name').fill('laptop CLI on the build machine in the basement');
  for (const box of await form.getByRole('checkbox').all()) await box.uncheck();
  await form.getByRole('button', { name: 'Create token' }).click();
  const scopes = form.locator('fieldset.checks');
  assert.match(await fieldError(scopes), /^Choose at least one scope: tunnels:read, /);
  await form.getByLabel('Read tunnels').check();
  assert.equal(await scopes.locator('.field-error').isVisible(), false, 'ticking a scope takes the error away');
  await form.getByLabel('Read tunnels').uncheck();
  await form.getByRole('button', { name: 'Create token' }).click();
  await fieldError(scopes);
  await form.getByLabel('Read tunnels').check();
  letReauthWindowPass();
  await form.getByRole('button', { name: 'Create token' }).click();
  await confirmInDialog(p, 'Creating an access token needs a recent sign-in.');
  await form.getByRole('textbox', { name: /^The token/ }).waitFor();
  assert.equal(await main().locator('.field-error:visible, .status.error').count(), 0, 'no error stays after a success');
  assert.equal(await scopes.getAttribute('aria-describedby'), null);
  await main().locator('li.token').filter({ hasText: 'laptop CLI' }).waitFor();
  await fits(p, 'tokens');
});

test('webhooks: the dialog names the action; Retry only on a failed delivery; the log fits as cards on a phone', needsChromium(), async () => {
  const p = page();
  await p.getByRole('link', { name: 'Webhooks' }).click();
  await p.waitForURL(url('/webhooks'));
  const form = p.locator('#new-webhook');
  const good = `${receiver().url}/a/rather/long/path/for/the/deployment-notifier`;
  await form.getByLabel('Endpoint URL').fill(good);
  await form.getByRole('button', { name: 'Add webhook' }).click();
  // Still within the recent sign-in confirmed for the token: the rule is what is wrong.
  assert.match(await fieldError(form.locator('fieldset.checks')), /^Choose at least one event: /);
  for (const label of ['A tunnel is created', 'A tunnel’s pinned tools change', 'Security activity on your account']) await form.getByLabel(label).check();
  letReauthWindowPass();
  await form.getByRole('button', { name: 'Add webhook' }).click();
  await confirmInDialog(p, 'Adding a webhook needs a recent sign-in.');
  await form.getByRole('textbox', { name: 'Signing secret' }).waitFor();
  assert.equal(await main().locator('.field-error:visible').count(), 0);
  // One endpoint that refuses connections: its deliveries fail.
  assert.equal((await s.request('/api/account/reauth', { method: 'POST', bearer: person.token, body: { password: person.password } })).status, 204);
  const bad = await s.request('/api/webhooks', { method: 'POST', bearer: person.token, body: { url: 'http://127.0.0.1:1/hook', events: ['tunnel.created'] } });
  assert.equal(bad.status, 201, bad.text);
  const hooks = (await s.request('/api/webhooks', { bearer: person.token })).json.webhooks as { id: string; url: string }[];
  for (const h of hooks) assert.equal((await s.request(`/api/webhooks/${h.id}/test`, { method: 'POST', bearer: person.token })).status, 202);
  for (const h of hooks) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const log = await s.request(`/api/webhooks/${h.id}/deliveries`, { bearer: person.token });
      if (log.json.deliveries.length > 0) break;
      assert.ok(Date.now() < deadline, `a delivery to ${h.url} is logged`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await p.reload();
  await p.locator('li.webhook').nth(1).waitFor();
  for (const row of await p.locator('li.webhook').all()) {
    await row.getByRole('button', { name: /^Show deliveries of/ }).click();
    await row.locator('table.deliveries tbody tr').first().waitFor();
  }
  const delivered = p.locator('li.webhook').filter({ hasText: 'deployment-notifier' }).locator('tr.ok');
  const failed = p.locator('li.webhook').filter({ hasText: '127.0.0.1:1' }).locator('tr.failed');
  await delivered.first().waitFor();
  await failed.first().waitFor();
  assert.equal(await delivered.getByRole('button', { name: /^Retry/ }).count(), 0, 'nothing to retry on a delivered event');
  assert.equal(await failed.first().getByRole('button', { name: /^Retry/ }).count(), 1);
  await fits(p, 'webhooks');
});

test('security with two-step on: activity in words, and one date format on the page', needsChromium(), async () => {
  await enableTwoStep(s, person);
  const p = page();
  await p.getByRole('link', { name: 'Security' }).click();
  await p.waitForURL(url('/security'));
  const activity = p.locator('#activity');
  await activity.getByText('Webhook created').first().waitFor();
  for (const title of await activity.locator('li strong').allTextContents()) assert.doesNotMatch(title, /_/, 'no raw code such as webhook_created');
  const times = await main().locator('time').allTextContents();
  assert.ok(times.length > 5);
  for (const t of times) assert.match(t, /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}$/);
  await p.locator('#two-step').getByText('Recovery codes left: 10.', { exact: false }).waitFor();
  await fits(p, 'security');
});

test('an organization’s pages fit, with the switcher open and a long name, host, member, token, webhook and audit log', needsChromium(), async () => {
  const slug = uniqueOrgSlug('analytical');
  const made = await s.request('/api/orgs', { method: 'POST', bearer: person.token, body: { slug, name: 'The Analytical Engine Company of Greater London and the Home Counties' } });
  assert.equal(made.status, 201, made.text);
  const tunnel = await s.request(`/api/orgs/${slug}/tunnels`, {
    method: 'POST',
    bearer: person.token,
    body: { subdomain: 'difference-engine-number-two', access: 'oauth', allowed_emails: ['charles.babbage@analytical-engines.example'] },
  });
  assert.equal(tunnel.status, 201, tunnel.text);
  const colleague = await signedIn(s, { verified: true });
  await addMember(s, made.json, colleague, 'admin');
  assert.equal((await s.request('/api/account/reauth', { method: 'POST', bearer: person.token, body: { password: person.password } })).status, 204);
  const invited = await s.request(`/api/orgs/${slug}/invitations`, { method: 'POST', bearer: person.token, body: { email: 'ada.lovelace.the.first.programmer@analytical-engines.example', role: 'member' } });
  assert.equal(invited.status, 201, invited.text);
  const token = await s.request(`/api/orgs/${slug}/tokens`, { method: 'POST', bearer: person.token, body: { name: 'nightly deploy of the difference engine', scopes: ['tunnels:read'] } });
  assert.equal(token.status, 201, token.text);
  const hook = await s.request(`/api/orgs/${slug}/webhooks`, { method: 'POST', bearer: person.token, body: { url: `${receiver().url}/organization/hooks/for/the/members`, events: ['org.member', 'tunnel.created'] } });
  assert.equal(hook.status, 201, hook.text);

  const p = page();
  await p.goto(url(`/orgs/${slug}/tunnels`));
  await p.locator('li.tunnel').first().waitFor();
  await p.locator('.switcher summary').click();
  await p.getByRole('list', { name: 'Accounts and organizations' }).waitFor();
  await fits(p, 'org-switcher');
  for (const [page, ready] of [
    ['tunnels', 'li.tunnel'],
    ['members', 'li.invitation'],
    ['tokens', 'li.token'],
    ['webhooks', 'li.webhook'],
    ['audit', 'table.audit tbody tr'],
    ['settings', '#delete-org'],
  ] as const) {
    await p.goto(url(`/orgs/${slug}/${page}`));
    await p.locator(ready).first().waitFor();
    for (const t of await main().locator('time').allTextContents()) assert.match(t, /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}$/, `one date format on ${page}`);
    await fits(p, `org-${page}`);
  }
  const events = await p.locator('table.audit tbody td:first-child').allInnerTexts();
  assert.ok(!events.some((e) => e.includes('_')), 'the audit log in words');
});

test('device and consent pages fit, with a request on screen', needsChromium(), async () => {
  const p = page();
  const cli = await s.request('/oauth/device_authorization', {
    method: 'POST',
    body: new URLSearchParams({ client_id: 'tunnel-cli' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'tunnel-cli/2.0 (Linux x86_64; a long build string 0123456789abcdef)' },
  });
  assert.equal(cli.status, 200, cli.text);
  await p.goto(cli.json.verification_uri_complete);
  await main().locator('.device-request').waitFor();
  await fits(p, 'device');

  const host = `vault-for-the-partner-team--${person.slug}.${ZONE}`;
  const { client_id: clientId } = await register(s);
  const { challenge } = pkce();
  const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's', scope: 'mcp', resource: `https://${host}/mcp` });
  await p.goto(url(`/oauth/authorize?${q}`));
  await p.waitForURL((u) => u.pathname === '/oauth/consent');
  await main().getByRole('button', { name: 'Allow', exact: true }).waitFor();
  await fits(p, 'consent');
  // The label column stays narrow beside its values on a desktop.
  const label = await main().locator('.consent-request dt').first().boundingBox();
  const value = await main().locator('.consent-request dd').first().boundingBox();
  assert.ok(label && value && label.width < value.width, 'the names take less room than the values');
});

test('GraphiQL: the editor and the result stack on a phone, the result pane as wide as the page', needsChromium(), async () => {
  const p = await ctx().context.newPage();
  try {
    await p.goto(url('/graphql'), { waitUntil: 'load' });
    await p.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
    await p.locator('.graphiql-execute-button').click();
    await p.locator('.graphiql-response').getByText(person.email, { exact: false }).waitFor({ timeout: 30_000 });
    await fits(p, 'graphiql');
    await p.setViewportSize({ width: 390, height: 844 });
    const result = await p.locator('.graphiql-response').boundingBox();
    assert.ok(result && result.width > 300, `the result pane is readable at 390 px (${result?.width} px wide)`);
  } finally {
    await p.close();
  }
});

test('the status page and the second step of a sign-in fit', needsChromium(), async () => {
  const p = page();
  await p.goto(`http://${ZONE}:${port()}/status`);
  await fits(p, 'status');

  const { context, watch } = await newContext(browser());
  try {
    const other = await context.newPage();
    await other.goto(url('/sign-in'));
    await other.getByLabel('Email', { exact: true }).fill(person.email);
    await other.getByLabel('Password', { exact: true }).fill(person.password);
    await other.getByRole('button', { name: 'Sign in', exact: true }).click();
    await other.waitForURL(url('/mfa'));
    await other.getByRole('button', { name: 'Verify' }).click();
    assert.equal(await fieldError(other.locator('main .field')), 'Enter a code.');
    await fits(other, 'mfa');
    assertClean(watch);
  } finally {
    await context.close();
  }
});

test('afterwards: no request left loopback, no CSP violation, no script error', needsChromium(), () => {
  assertClean(ctx().watch);
});
