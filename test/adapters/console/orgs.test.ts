// The console's organizations (API.md section 18) in headless Chromium: the switcher creates an
// organization and moves between it and the personal account; the organization's Tunnels (create,
// move a tunnel in), Members (invite, change a role, remove; a member sees only what the role
// allows, and can leave), Access tokens and Webhooks (its own scopes and events), Audit log
// (newest first, older on request) and Settings (rename, the slug too, delete after confirming
// it's you). Each page fits 390 and 1280 px without scrolling sideways, and axe finds no serious
// violation. One server and one browser for the file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { PASSWORD, signedIn, type SignedIn } from '../../support/accounts.js';
import { useFixture } from '../../support/fixture.js';
import { freePort } from '../../support/programs.js';
import { uniqueOrgSlug } from '../../support/orgs.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import { assertAccessible, assertClean, needsChromium, newContext, useBrowser } from './browser.js';

const ZONE = 'tunnels.localhost';
const port = useFixture(() => freePort(), async () => {}, needsChromium());
const receiver = useFixture(() => WebhookReceiver.start(), (r) => r.close(), needsChromium());
const s = useServer(
  () => {
    const origin = `http://localhost:${port()}`;
    return { port: port(), env: { BASE_URL: origin, APP_URL: origin, ZONE, WEBHOOK_ALLOW_PRIVATE: 'true' } };
  },
  needsChromium(),
);
const browser = useBrowser();
const ctx = useFixture(
  async () => {
    const { context, watch } = await newContext(browser());
    return { context, watch, page: await context.newPage() };
  },
  async (c) => c.context.close(),
  needsChromium(),
);
const page = (): Page => ctx().page;
const url = (path: string) => `${s.url}${path}`;
const main = () => page().locator('main');
const slug = uniqueOrgSlug('acme');
let owner: SignedIn;
let member: SignedIn;

async function signIn(p: Page, who: SignedIn): Promise<void> {
  await p.goto(url('/sign-in'));
  await p.getByLabel('Email', { exact: true }).fill(who.email);
  await p.getByLabel('Password', { exact: true }).fill(who.password);
  await p.getByRole('button', { name: 'Sign in', exact: true }).click();
  await p.waitForURL(url('/account'));
}

/** No sideways scrolling at a phone's width and a desktop's (back at 1280 px after). */
async function fits(p: Page, what: string): Promise<void> {
  for (const width of [390, 1280]) {
    await p.setViewportSize({ width, height: width < 800 ? 844 : 800 });
    await p.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    const [scroll, client] = await p.evaluate<[number, number]>('[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]');
    assert.ok(scroll <= client, `${what} scrolls sideways at ${width} px (${scroll} > ${client})`);
  }
}

/** The error shown beside a field, once it is there. */
async function fieldError(box: ReturnType<Page['locator']>): Promise<string> {
  const error = box.locator('.field-error');
  await error.waitFor();
  return (await error.textContent()) ?? '';
}

/** The switcher's entries, as read. */
async function switcherEntries(p: Page): Promise<string[]> {
  const list = p.getByRole('list', { name: 'Accounts and organizations' });
  if (!(await list.isVisible())) await p.locator('.switcher summary').click();
  return (await list.getByRole('link').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
}

const navLinks = async (p: Page) => p.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents();

test('the switcher creates an organization; its Tunnels page creates a tunnel on its host', needsChromium(), async () => {
  owner = await signedIn(s, { verified: true, password: PASSWORD });
  const p = page();
  await signIn(p, owner);
  assert.deepEqual(await switcherEntries(p), [`Personal account ${owner.slug}`, '+ New organization']);
  await fits(p, 'the open switcher');
  await p.keyboard.press('Escape');
  await p.getByRole('list', { name: 'Accounts and organizations' }).waitFor({ state: 'hidden' });
  await switcherEntries(p);
  await main().click({ position: { x: 5, y: 5 } });
  await p.getByRole('list', { name: 'Accounts and organizations' }).waitFor({ state: 'hidden' });
  await switcherEntries(p);
  await p.getByRole('link', { name: '+ New organization' }).click();
  await p.waitForURL(url('/orgs/new'));
  const form = p.locator('#new-org');
  await form.getByLabel('Name').fill('Acme Tools');
  await form.getByLabel('Slug').fill('api');
  await form.getByRole('button', { name: 'Create organization' }).click();
  assert.equal(await fieldError(form.locator('.field[data-field="slug"]')), 'That slug is reserved.', 'the refusal beside its field');
  await form.getByLabel('Slug').fill(slug);
  await fits(p, 'new organization');
  await form.getByRole('button', { name: 'Create organization' }).click();
  await p.waitForURL(url(`/orgs/${slug}/tunnels`));
  await main().getByText('Acme Tools is created, and you are its owner.', { exact: false }).waitFor();
  assert.equal(await p.locator('.switcher summary .current').innerText(), 'Acme Tools');
  assert.deepEqual(await navLinks(p), ['Tunnels', 'Members', 'Access tokens', 'Webhooks', 'Audit log', 'Settings']);
  assert.match(await main().locator('.org-line').innerText(), /Acme Tools · your role: owner/);

  const tunnels = p.locator('#new-tunnel');
  assert.match(await tunnels.locator('.hint').innerText(), new RegExp(`<subdomain>--${slug}\\.${ZONE.replace('.', '\\.')}`));
  await tunnels.getByLabel('Subdomain').fill('weather');
  await tunnels.getByRole('button', { name: 'Create tunnel' }).click();
  const host = `weather--${slug}.${ZONE}`;
  await main().getByText(`The tunnel ${host} is created.`, { exact: false }).waitFor();
  await p.locator('#tunnel-list li.tunnel').filter({ hasText: host }).waitFor();
  const listed = await s.request(`/api/orgs/${slug}/tunnels`, { bearer: owner.token });
  assert.deepEqual(listed.json.tunnels.map((t: { host: string; owner: unknown }) => [t.host, t.owner]), [[host, { type: 'org', slug }]]);
  assert.deepEqual((await s.request('/api/tunnels', { bearer: owner.token })).json.tunnels, [], 'not a personal tunnel');
  await fits(p, 'organization tunnels');
  await assertAccessible(p, 'organization tunnels');
});

test('a personal tunnel moves into the organization after a second press; the switcher keeps the page', needsChromium(), async () => {
  const p = page();
  assert.deepEqual(await switcherEntries(p), [`Personal account ${owner.slug}`, 'Acme Tools owner', '+ New organization']);
  await p.getByRole('link', { name: /^Personal account/ }).click();
  await p.waitForURL(url('/tunnels'));
  await p.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Security' }).waitFor();
  assert.deepEqual(await navLinks(p), ['Account', 'Security', 'Tunnels', 'Access tokens', 'Webhooks']);
  await p.locator('#new-tunnel').getByLabel('Subdomain').fill('notes');
  await p.locator('#new-tunnel').getByRole('button', { name: 'Create tunnel' }).click();
  const row = p.locator('li.tunnel').filter({ hasText: 'notes' });
  const move = row.locator('form.transfer');
  assert.equal(await move.getByLabel('Move to').inputValue(), slug);
  await move.getByRole('button', { name: 'Move' }).click();
  assert.equal(await move.getByRole('button').innerText(), 'Confirm: move to Acme Tools', 'nothing moves on the first press');
  assert.equal((await s.request('/api/tunnels', { bearer: owner.token })).json.tunnels.length, 1);
  await move.getByRole('button').click();
  await main().getByText(`The tunnel notes moved to Acme Tools: its host is now notes--${slug}.${ZONE}.`).waitFor();
  assert.deepEqual((await s.request('/api/tunnels', { bearer: owner.token })).json.tunnels, []);
  await switcherEntries(p);
  await p.getByRole('link', { name: /^Acme Tools/ }).click();
  await p.waitForURL(url(`/orgs/${slug}/tunnels`));
  await p.locator('#tunnel-list li.tunnel').filter({ hasText: `notes--${slug}` }).waitFor();
  // Back to personal: the organization's tunnel may move back to "My account".
  assert.deepEqual(await p.locator('li.tunnel').first().getByLabel('Move to').locator('option').allTextContents(), ['My account']);
});

test('members: invite, change a role, remove; the list and the invitation fit', needsChromium(), async () => {
  member = await signedIn(s, { verified: true, password: PASSWORD });
  const leaver = await signedIn(s, { verified: true });
  const org = (await s.request(`/api/orgs/${slug}`, { bearer: owner.token })).json;
  // Joined after the owner, one after the other (the list is oldest first).
  const since = Date.parse((await s.request(`/api/orgs/${slug}/members`, { bearer: owner.token })).json.members[0].joined_at);
  await s.deps.db.orgMember.createMany({
    data: [member, leaver].map((who, i) => ({ orgId: org.id, accountId: who.id, role: 'member', joinedAt: new Date(since + (i + 1) * 1000) })),
  });
  const p = page();
  await p.getByRole('link', { name: 'Members' }).click();
  await p.waitForURL(url(`/orgs/${slug}/members`));
  const rows = p.locator('li.member');
  await rows.nth(2).waitFor();
  assert.deepEqual(await rows.locator('strong.email').allTextContents(), [owner.email, member.email, leaver.email]);
  assert.equal(await rows.first().locator('form.role-form').count(), 0, 'no role form for oneself');
  assert.equal(await rows.first().getByRole('button', { name: `Leave Acme Tools` }).count(), 1);

  const invite = p.locator('#invite');
  const invited = uniqueEmail('invited');
  await invite.getByLabel('Email address').fill(invited);
  await invite.getByLabel('Role').selectOption('admin');
  await invite.getByRole('button', { name: 'Send invitation' }).click();
  await invite.getByText(`Invitation sent to ${invited} (as admin).`).waitFor();
  await invite.locator('li.invitation').filter({ hasText: invited }).waitFor();
  await fits(p, 'members');
  await assertAccessible(p, 'members');
  await invite.getByRole('button', { name: `Revoke the invitation of ${invited}` }).click();
  await invite.getByText('No pending invitation.').waitFor();

  const row = rows.filter({ hasText: member.email });
  await row.getByRole('combobox', { name: 'Role' }).selectOption('admin');
  await row.getByRole('button', { name: 'Change role' }).click();
  await main().getByText(`${member.email} is now Admin.`).waitFor();
  const roles = (await s.request(`/api/orgs/${slug}/members`, { bearer: owner.token })).json.members.map((m: { email: string; role: string }) => [m.email, m.role]);
  assert.deepEqual(roles, [[owner.email, 'owner'], [member.email, 'admin'], [leaver.email, 'member']]);

  const gone = rows.filter({ hasText: leaver.email });
  await gone.getByRole('button', { name: `Remove ${leaver.email}` }).click();
  assert.equal(await rows.count(), 3, 'asks a second press first');
  await gone.getByRole('button', { name: `Confirm: remove ${leaver.email}` }).click();
  await main().getByText(`${leaver.email} is no longer a member of Acme Tools.`).waitFor();
  assert.equal(await rows.count(), 2);
});

test('audit log: in words, newest first, older events on request', needsChromium(), async () => {
  // More events than a page holds: renames, the last one back to the name it had.
  for (let i = 1; i <= 55; i++) {
    const r = await s.request(`/api/orgs/${slug}`, { method: 'PATCH', bearer: owner.token, body: { name: i === 55 ? 'Acme Tools' : `Acme Tools ${i}` } });
    assert.equal(r.status, 200, r.text);
  }
  const p = page();
  await p.getByRole('link', { name: 'Audit log' }).click();
  await p.waitForURL(url(`/orgs/${slug}/audit`));
  const rows = p.locator('table.audit tbody tr');
  await rows.first().waitFor();
  assert.equal(await rows.count(), 50);
  const cells = (i: number) => rows.nth(i).locator('td');
  assert.deepEqual((await cells(0).allInnerTexts()).slice(0, 3), ['Organization renamed', owner.email, 'Acme Tools']);
  assert.equal(await cells(1).nth(2).innerText(), 'Acme Tools 54', 'newest first');
  assert.match(await cells(0).nth(3).innerText(), /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}$/, 'the console’s one date format');
  await fits(p, 'audit log');
  await assertAccessible(p, 'audit log');
  const more = p.getByRole('button', { name: 'Show older events' });
  await more.click();
  await rows.nth(50).waitFor();
  await more.waitFor({ state: 'hidden' });
  const events = await rows.locator('td:first-child').allInnerTexts();
  assert.deepEqual(events.slice(55), ['Member removed', 'Role changed', 'Invitation revoked', 'Member invited', 'Tunnel moved', 'Tunnel created', 'Organization created']);
  assert.ok(!events.some((e) => e.includes('_')), 'no raw type such as member_removed');
  assert.equal(new Set(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-event-id')))).size, events.length, 'no event twice');
  assert.match(await cells(55).nth(2).innerText(), /, as member$/);
  assert.equal(await cells(56).nth(2).innerText(), `${member.email}, member → admin`);
  assert.equal(await cells(59).nth(2).innerText(), `notes, ${owner.slug} → ${slug}`);
  await fits(p, 'the whole audit log');
});

test('the organization’s access tokens and webhooks: its own scopes and events', needsChromium(), async () => {
  const p = page();
  await p.getByRole('link', { name: 'Access tokens' }).click();
  await p.waitForURL(url(`/orgs/${slug}/tokens`));
  const form = p.locator('#new-token');
  await form.waitFor();
  assert.deepEqual(await form.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value)), ['tunnels:read', 'tunnels:write'], 'its tokens reach tunnels only');
  await form.getByLabel('Name').fill('deploy from CI');
  await form.getByRole('button', { name: 'Create token' }).click();
  const secret = await form.getByRole('textbox', { name: 'The token "deploy from CI"' }).inputValue();
  const made = p.locator('li.token').filter({ hasText: 'deploy from CI' });
  await made.waitFor();
  assert.match(await made.locator('dl.facts').innerText(), new RegExp(`Made by\\s+${owner.email.replace(/[.+]/g, '\\$&')}`));
  const tokens = (await s.request(`/api/orgs/${slug}/tokens`, { bearer: owner.token })).json.tokens as { name: string }[];
  assert.deepEqual(tokens.map((t) => t.name), ['deploy from CI']);
  assert.equal((await s.request(`/api/orgs/${slug}/tunnels`, { bearer: secret })).status, 200, 'the secret shown is the organization’s token');
  await fits(p, 'organization tokens');

  await p.getByRole('link', { name: 'Webhooks' }).click();
  await p.waitForURL(url(`/orgs/${slug}/webhooks`));
  const hook = p.locator('#new-webhook');
  await hook.waitFor();
  const labels = await hook.locator('label.check').allInnerTexts();
  assert.ok(labels.some((l) => l.startsWith('Members join, leave or change role')));
  assert.ok(!labels.some((l) => l.startsWith('Security activity')), 'no personal security events');
  await hook.getByLabel('Endpoint URL').fill(`${receiver().url}/acme/hooks`);
  await hook.getByLabel('Members join, leave or change role').check();
  await hook.getByRole('button', { name: 'Add webhook' }).click();
  await hook.getByRole('textbox', { name: 'Signing secret' }).waitFor();
  const row = p.locator('li.webhook').filter({ hasText: '/acme/hooks' });
  await row.getByRole('button', { name: /^Send a test event to/ }).click();
  await main().getByText('A test event is on its way.').waitFor();
  const hooks = (await s.request(`/api/orgs/${slug}/webhooks`, { bearer: owner.token })).json.webhooks as { id: string; events: string[] }[];
  assert.deepEqual(hooks.map((w) => w.events), [['org.member']]);
  // Delivered (the receiver answered): the log shows it once opened again.
  for (const deadline = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 100))) {
    const log = await s.request(`/api/orgs/${slug}/webhooks/${hooks[0]!.id}/deliveries`, { bearer: owner.token });
    if (log.json.deliveries?.length) break;
    assert.ok(Date.now() < deadline, 'a delivery is logged');
  }
  await p.reload();
  await row.getByRole('button', { name: /^Show deliveries of/ }).click();
  await row.locator('table.deliveries tbody tr.ok').first().waitFor();
  await fits(p, 'organization webhooks');
});

test('a member sees only what the role allows, and can leave', needsChromium(), async () => {
  await s.request(`/api/orgs/${slug}/members/${member.id}`, { method: 'PATCH', bearer: owner.token, body: { role: 'member' } });
  const { context, watch } = await newContext(browser());
  try {
    const p = await context.newPage();
    await signIn(p, member);
    await switcherEntries(p);
    await p.getByRole('link', { name: /^Acme Tools member/ }).click();
    await p.waitForURL(url(`/orgs/${slug}/tunnels`));
    await p.locator('.org-line').waitFor();
    assert.deepEqual(await navLinks(p), ['Tunnels', 'Members']);
    const tunnel = p.locator('li.tunnel').first();
    await tunnel.waitFor();
    assert.equal(await tunnel.getByRole('switch', { name: 'Require sign-in (OAuth)' }).count(), 0, 'who may reach a tunnel is an admin’s');
    assert.match(await tunnel.locator('dl.access').innerText(), /Anyone who knows the address/);
    await p.getByRole('link', { name: 'Members' }).click();
    await p.locator('li.member').nth(1).waitFor();
    assert.equal(await p.locator('form.role-form').count(), 0);
    assert.equal(await p.locator('#invite').count(), 0);
    await fits(p, 'members as a member');
    await p.goto(url(`/orgs/${slug}/audit`));
    await p.getByText('Your role in Acme Tools (member) does not include this page.').waitFor();
    assert.match(await p.title(), /^Audit log · Acme Tools · /);
    await p.goto(url('/orgs/not-mine-at-all/members'));
    await p.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    assert.match(await p.title(), /^Not found · /, 'another’s organization is not revealed');

    await p.goto(url(`/orgs/${slug}/members`));
    const self = p.locator('li.member').filter({ hasText: member.email });
    await self.getByRole('button', { name: 'Leave Acme Tools' }).click();
    await self.getByRole('button', { name: 'Confirm: leave Acme Tools' }).click();
    await p.waitForURL(url('/tunnels'));
    await p.getByText('You left Acme Tools.').waitFor();
    assert.deepEqual(await switcherEntries(p), [`Personal account ${member.slug}`, '+ New organization']);
    assertClean(watch);
  } finally {
    await context.close();
  }
});

test('settings: rename, the slug too (its tunnels move); deleting asks for the slug, then to confirm it’s you', needsChromium(), async () => {
  const p = page();
  await p.getByRole('link', { name: 'Settings' }).click();
  await p.waitForURL(url(`/orgs/${slug}/settings`));
  const rename = p.locator('#org-name');
  const renamed = `${slug}-co`;
  await rename.getByLabel('Name').fill('Acme Tools & Co');
  await rename.getByLabel('Slug').fill(renamed);
  await rename.getByRole('button', { name: 'Save' }).click();
  await p.waitForURL(url(`/orgs/${renamed}/settings`));
  await main().getByText(`Saved: Acme Tools & Co (${renamed}).`).waitFor();
  assert.equal(await p.locator('.switcher summary .current').innerText(), 'Acme Tools & Co');
  const hosts = (await s.request(`/api/orgs/${renamed}/tunnels`, { bearer: owner.token })).json.tunnels.map((t: { host: string }) => t.host);
  assert.deepEqual(hosts.sort(), [`notes--${renamed}.${ZONE}`, `weather--${renamed}.${ZONE}`]);
  await fits(p, 'settings');
  await assertAccessible(p, 'settings');

  const del = p.locator('#delete-org');
  await del.getByLabel('Type the slug to confirm').fill(slug);
  await del.getByRole('button', { name: 'Delete organization' }).click();
  assert.equal(await fieldError(del.locator('.field')), `Type ${renamed} exactly to confirm.`);
  s.clock.advance(11 * 60_000);
  await del.getByLabel('Type the slug to confirm').fill(renamed);
  await del.getByRole('button', { name: 'Delete organization' }).click();
  const dialog = p.getByRole('dialog', { name: 'Confirm it’s you' });
  await dialog.waitFor();
  assert.match(await dialog.locator('#reauth-why').innerText(), /^Deleting an organization needs a recent sign-in\./);
  await dialog.getByLabel('Password', { exact: true }).fill(owner.password);
  await dialog.getByRole('button', { name: 'Confirm', exact: true }).click();
  await p.waitForURL(url('/tunnels'));
  await p.getByText('Acme Tools & Co is deleted.').waitFor();
  assert.equal((await s.request(`/api/orgs/${renamed}`, { bearer: owner.token })).status, 404);
  assert.deepEqual(await switcherEntries(p), [`Personal account ${owner.slug}`, '+ New organization']);
});

test('afterwards: no request left loopback, no CSP violation, no script error', needsChromium(), () => {
  assertClean(ctx().watch);
});
