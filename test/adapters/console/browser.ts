// Headless Chromium for the console tests (Debian's /usr/bin/chromium through playwright-core):
// one browser per file, contexts that may reach only loopback (every other request is aborted
// and recorded, so a test can assert none was attempted), CSP violations collected from the
// console, axe-core checks, and screenshots at desktop and phone width under
// test-artifacts/console/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';

export { CHROMIUM, needsChromium, useBrowser } from '../../support/browser.js';
export const ARTIFACTS = join('test-artifacts', 'console');

const LOOPBACK = (hostname: string) => hostname === '127.0.0.1' || hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]';

/** What a context tried beyond loopback, and the CSP violations its pages reported. */
export interface Watch {
  offLoopback: string[];
  cspViolations: string[];
  pageErrors: string[];
}

export async function newContext(browser: Browser, opts: { phone?: boolean } = {}): Promise<{ context: BrowserContext; watch: Watch }> {
  const context = await browser.newContext({
    viewport: opts.phone ? { width: 360, height: 740 } : { width: 1280, height: 800 },
    locale: 'en-GB',
    timezoneId: 'UTC',
  });
  const watch: Watch = { offLoopback: [], cspViolations: [], pageErrors: [] };
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if ((url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'ws:') && !LOOPBACK(url.hostname)) {
      watch.offLoopback.push(url.href);
      return route.abort('blockedbyclient');
    }
    return route.continue();
  });
  context.on('page', (page) => observe(page, watch));
  return { context, watch };
}

function observe(page: Page, watch: Watch): void {
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) watch.cspViolations.push(msg.text());
  });
  page.on('pageerror', (err) => watch.pageErrors.push(err.message));
}

/** Nothing left loopback, no CSP violation, no uncaught script error. */
export function assertClean(watch: Watch): void {
  assert.deepEqual(watch.offLoopback, [], 'no request beyond loopback');
  assert.deepEqual(watch.cspViolations, [], 'no CSP violation');
  assert.deepEqual(watch.pageErrors, [], 'no uncaught error in the page');
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `axe on ${what}`,
  );
}

/** Full-page screenshots at 1280 px and 360 px wide (the viewport is restored after). */
/**
 * Screenshots at 1280 and 360 px (the whole page; `fullPage: false` for a page too long to
 * picture whole, such as the API reference, whose first screen is kept), then the sideways check.
 */
export async function screenshots(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const fullPage = opts.fullPage ?? true;
  const before = page.viewportSize() ?? { width: 1280, height: 800 };
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: join(ARTIFACTS, `${name}-desktop.png`), fullPage });
  await page.setViewportSize({ width: 360, height: 740 });
  await page.screenshot({ path: join(ARTIFACTS, `${name}-phone.png`), fullPage });
  // Nothing may stick out sideways on a phone.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `${name} scrolls sideways at 360 px by ${overflow} px`);
  await page.setViewportSize(before);
}

/** axe plus both screenshots: what every page of the walk-through gets. */
export async function checkPage(page: Page, name: string): Promise<void> {
  const t0 = Date.now();
  await assertAccessible(page, name);
  const t1 = Date.now();
  await screenshots(page, name);
  if (process.env.CONSOLE_TIMING) console.log(`${name}: axe ${t1 - t0} ms, screenshots ${Date.now() - t1} ms`);
}
