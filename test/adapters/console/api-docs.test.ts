// GET /docs in Chromium (API.md section 16): Redoc renders the reference from /openapi.json with
// local assets only (every request beyond loopback is blocked and recorded), no CSP violation and
// no script error, at 1280 and 360 px; the console's tokens page links to it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useFixture } from '../../support/fixture.js';
import { freePort } from '../../support/programs.js';
import { signedIn } from '../../support/accounts.js';
import { useServer } from '../../support/server.js';
import { assertClean, needsChromium, newContext, screenshots, useBrowser } from './browser.js';

// The console signs in through /graphql from its own origin: BASE_URL is that origin.
const port = useFixture(() => freePort(), async () => {}, needsChromium());
const s = useServer(() => ({ port: port(), env: { BASE_URL: `http://localhost:${port()}` } }), needsChromium());
const browser = useBrowser();
const ctx = useFixture(() => newContext(browser()), ({ context }) => context.close(), needsChromium());

test('the API reference renders from local assets under its CSP, reaching nothing beyond loopback', needsChromium(), async () => {
  const page = await ctx().context.newPage();
  const loaded: string[] = [];
  page.on('requestfinished', (r) => loaded.push(new URL(r.url()).pathname));
  await page.goto(`${s.url}/docs`, { waitUntil: 'load' });
  // An operation of each kind shows: its summary, its path and a response schema's field.
  await page.getByRole('heading', { name: 'Create a webhook endpoint; its signing secret is shown once.' }).waitFor({ timeout: 60_000 });
  await page.getByRole('heading', { name: /REST API/ }).first().waitFor();
  await page.getByRole('heading', { name: 'Create a tunnel.' }).waitFor();
  assert.ok(loaded.includes('/openapi.json'), 'the document comes from this origin');
  await screenshots(page, 'api-docs', { fullPage: false });
  assertClean(ctx().watch);
  await page.close();
});

test("the console's tokens page links to the reference", needsChromium(), async () => {
  const a = await signedIn(s, { verified: true });
  const { context, watch } = ctx();
  await context.addCookies([{ name: 'session', value: a.token, url: s.url }]);
  const page = await context.newPage();
  await page.goto(`${s.url}/tokens`, { waitUntil: 'load' });
  const link = page.locator('#api-reference').getByRole('link', { name: 'API reference' });
  await link.waitFor().catch(async (err: unknown) => {
    throw new Error(`${String(err)}\n${await page.locator('body').innerText()}`);
  });
  assert.equal(await link.getAttribute('href'), '/docs');
  await link.click();
  await page.waitForURL(`${s.url}/docs`);
  await page.getByRole('heading', { name: 'Create a tunnel.' }).waitFor({ timeout: 60_000 });
  assertClean(watch);
  await page.close();
});
