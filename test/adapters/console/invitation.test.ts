// The page of an invitation's link in Chromium (API.md section 18), at a 390 px phone: a
// signed-out visitor signs in and comes back to the invitation, sees the organization and the
// role, accepts and is a member; the used link then says so. Another account is told the
// invitation is for another address; the invited account with its address unverified is told to
// verify it (with the resend button) and may decline. axe-core and screenshots at desktop and
// phone width (test-artifacts/console/invitation-*), nothing beyond loopback, no CSP violation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { useFixture } from '../../support/fixture.js';
import { freePort } from '../../support/programs.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { login, signedIn, signup, type SignedIn } from '../../support/accounts.js';
import { assertClean, checkPage, needsChromium, newContext, useBrowser } from './browser.js';

const port = useFixture(() => freePort(), async () => {}, needsChromium());
const s = useServer(
  () => {
    const origin = `http://localhost:${port()}`;
    return { port: port(), env: { BASE_URL: origin, APP_URL: origin } };
  },
  needsChromium(),
);
const browser = useBrowser();
const PHONE = { width: 390, height: 844 };

let n = 0;
async function orgWithInvitation(owner: SignedIn, email: string, role: string, name: string): Promise<{ slug: string; link: string }> {
  const slug = `inv-page-${Date.now().toString(36)}${++n}`;
  const org = await s.request('/api/orgs', { method: 'POST', bearer: owner.token, body: { slug, name } });
  assert.equal(org.status, 201, org.text);
  const r = await s.request(`/api/orgs/${slug}/invitations`, { method: 'POST', bearer: owner.token, body: { email, role } });
  assert.equal(r.status, 201, r.text);
  const mail = await s.smtp.waitFor(email, 'org-invitation');
  const link = mail.links.find((l) => l.includes('/invitations/accept?token='));
  assert.ok(link, 'the email links to the accept page');
  return { slug, link };
}

/** No sideways scrolling at the width the page is at. */
async function fitsWidth(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `scrolls sideways at ${page.viewportSize()?.width} px by ${overflow} px`);
}

test('signed out → sign in → back to the invitation → Accept: a member; the used link then says so (390 px)', needsChromium(), async () => {
  const owner = await signedIn(s, { verified: true });
  const invitee = await signedIn(s, { verified: true });
  const { slug, link } = await orgWithInvitation(owner, invitee.email, 'admin', 'Acme Tools');
  const { context, watch } = await newContext(browser());
  try {
    const page = await context.newPage();
    await page.setViewportSize(PHONE);
    await page.goto(link);
    await page.waitForURL((u) => u.pathname === '/sign-in');
    await page.getByLabel('Email').fill(invitee.email);
    await page.getByLabel('Password', { exact: true }).fill(invitee.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/invitations/accept' && u.searchParams.has('token'));
    const main = page.locator('main');
    await main.getByRole('heading', { level: 1, name: 'Join Acme Tools?' }).waitFor();
    assert.match((await main.locator('dl.facts').textContent()) ?? '', new RegExp(`Your role\\s*admin.*Sent to\\s*${invitee.email.replace(/[.+]/g, '\\$&')}`, 's'));
    await fitsWidth(page);
    await checkPage(page, 'invitation');
    await fitsWidth(page);

    await main.getByRole('button', { name: 'Accept', exact: true }).click();
    await assert.doesNotReject(main.getByText('You joined Acme Tools as admin.').waitFor());
    await main.getByRole('heading', { level: 1, name: 'You joined Acme Tools' }).waitFor();
    assert.equal(await main.getByRole('button', { name: 'Accept', exact: true }).count(), 0, 'no Accept once joined');
    assert.equal(new URL(page.url()).search, '', 'the used token leaves the address bar');
    await fitsWidth(page);
    await checkPage(page, 'invitation-joined');
    const members = await s.request(`/api/orgs/${slug}/members`, { bearer: owner.token });
    assert.ok(members.json.members.some((m: { email: string; role: string }) => m.email === invitee.email && m.role === 'admin'), 'joined as admin');
    // Into the organization.
    assert.equal(await main.getByRole('link', { name: 'Open Acme Tools' }).getAttribute('href'), `/orgs/${slug}/tunnels`);

    // The link works once.
    await page.goto(link);
    await assert.doesNotReject(main.getByText('This invitation link is unknown, already used, revoked or expired.', { exact: false }).waitFor());
    assert.equal(await main.getByRole('button', { name: 'Accept', exact: true }).count(), 0);
    await fitsWidth(page);
    await checkPage(page, 'invitation-used');
    assertClean(watch);
  } finally {
    await context.close();
  }
});

test('the reason in words: another address is refused; the invited address unverified is told to verify, and may decline', needsChromium(), async () => {
  const owner = await signedIn(s, { verified: true });
  const email = uniqueEmail('invited-later');
  const { slug, link } = await orgWithInvitation(owner, email, 'member', 'Beta Works');
  const stranger = await signedIn(s, { verified: true });
  const { context, watch } = await newContext(browser());
  try {
    await context.addCookies([{ name: 'session', value: stranger.cookie, url: s.url }]);
    const page = await context.newPage();
    await page.setViewportSize(PHONE);
    await page.goto(link);
    const main = page.locator('main');
    await main.getByRole('heading', { level: 1, name: 'Join Beta Works?' }).waitFor();
    await main.getByRole('button', { name: 'Accept', exact: true }).click();
    await assert.doesNotReject(main.getByText(`This invitation was sent to ${email}, and you are signed in as ${stranger.email}.`, { exact: false }).waitFor());
    await fitsWidth(page);
    await checkPage(page, 'invitation-other-address');

    // The invited address's account, not verified yet.
    const invited = await signup(s, { email });
    await context.clearCookies();
    await context.addCookies([{ name: 'session', value: (await login(s, invited)).cookie, url: s.url }]);
    await page.goto(link);
    await main.getByRole('heading', { level: 1, name: 'Join Beta Works?' }).waitFor();
    await main.getByRole('button', { name: 'Accept', exact: true }).click();
    await assert.doesNotReject(main.getByText('is not verified yet', { exact: false }).waitFor());
    await main.getByRole('button', { name: 'Resend the verification email' }).click();
    await assert.doesNotReject(main.getByText(`A new verification link is on its way to ${email}.`).waitFor());
    await fitsWidth(page);
    await main.getByRole('button', { name: 'Decline', exact: true }).click();
    await assert.doesNotReject(main.getByText('Declined: you did not join Beta Works', { exact: false }).waitFor());
    await main.getByRole('heading', { level: 1, name: 'Invitation declined' }).waitFor();
    await fitsWidth(page);
    await checkPage(page, 'invitation-declined');
    const pending = await s.request(`/api/orgs/${slug}/invitations`, { bearer: owner.token });
    assert.deepEqual(pending.json.invitations, [], 'declined: no longer pending');
    assertClean(watch);
  } finally {
    await context.close();
  }
});
