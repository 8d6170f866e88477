// The HTML status page in a real browser (headless Chromium): no scripts, the verdict,
// checked_at, one row per component with a green "ok" or red "down" marker, readable on a phone.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { useFixture } from '../../support/fixture.js';
import { useStatusFixture, ZONE } from '../../support/status.js';

const ARTIFACTS = new URL('../../../test-artifacts/', import.meta.url);

const f = useStatusFixture();
const browser = useFixture(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      // The zone host must be the Host header, and browsers do not let pages set it: resolve the
      // zone name to the test server's loopback address instead.
      `--host-resolver-rules=MAP ${ZONE} 127.0.0.1`,
    ],
  });
}, (b) => b.close());

/** "rgb(26, 127, 55)" → [26, 127, 55] */
const rgb = (css: string): number[] => (css.match(/\d+/g) ?? []).slice(0, 3).map(Number);
const isGreen = ([r = 0, g = 0, b = 0]: number[]) => g > r + 40 && g > b + 40;
const isRed = ([r = 0, g = 0, b = 0]: number[]) => r > g + 80 && r > b + 80;

async function openStatusPage(screenshot: string) {
  // A phone-sized viewport; the browser sends its own Accept header (text/html first).
  const context = await browser().newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
  });
  const page = await context.newPage();
  const response = await page.goto(`http://${ZONE}:${new URL(f.s.url).port}/status`);
  assert.ok(response);
  const rows = await page.$$eval('tbody tr', (trs) =>
    trs.map((tr) => {
      const marker = tr.querySelector('.marker') as HTMLElement;
      return {
        name: tr.querySelector('.name')?.textContent,
        marker: marker.textContent,
        background: getComputedStyle(marker).backgroundColor,
        detail: tr.querySelector('.detail')?.textContent,
      };
    }),
  );
  const info = await page.evaluate(() => ({
    scripts: document.querySelectorAll('script').length,
    verdict: document.querySelector('.verdict')?.textContent ?? '',
    checked: document.querySelector('time')?.getAttribute('datetime') ?? '',
    overflow: document.documentElement.scrollWidth > window.innerWidth,
  }));
  await page.screenshot({ path: new URL(screenshot, ARTIFACTS).pathname, fullPage: true });
  await context.close();
  return { status: response.status(), contentType: response.headers()['content-type'] ?? '', rows, ...info };
}

test('all ok: 200 page with the verdict, checked_at and three green "ok" rows, no scripts, fits a phone', async () => {
  await f.reset();
  const json = await f.status();
  const p = await openStatusPage('status-ok.png');
  assert.equal(p.status, 200);
  assert.match(p.contentType, /^text\/html/);
  assert.equal(p.scripts, 0);
  assert.match(p.verdict, /operational/i);
  assert.equal(p.checked, json.json.checked_at);
  assert.deepEqual(p.rows.map((r) => [r.name, r.marker]), [['broker', 'ok'], ['api', 'ok'], ['edge', 'ok']]);
  for (const r of p.rows) assert.ok(isGreen(rgb(r.background)), `${r.name} marker is green (${r.background})`);
  assert.equal(p.overflow, false, 'no horizontal scrolling at 390 px');
});

test('broker down: 503 page with a red "down" broker row and the failure detail', async () => {
  await f.reset();
  await f.broker.set(503);
  const p = await openStatusPage('status-degraded.png');
  assert.equal(p.status, 503);
  assert.match(p.verdict, /degraded/i);
  assert.deepEqual(p.rows.map((r) => [r.name, r.marker]), [['broker', 'down'], ['api', 'ok'], ['edge', 'ok']]);
  assert.ok(isRed(rgb(p.rows[0]!.background)), `broker marker is red (${p.rows[0]!.background})`);
  assert.ok(isGreen(rgb(p.rows[1]!.background)));
  assert.equal(p.rows[0]!.detail, 'status 503');
  assert.equal(p.overflow, false);
});

test('the HTML answer forbids scripts by policy and varies on Accept', async () => {
  await f.reset();
  const r = await f.status({ headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
  assert.match(String(r.headers['content-type']), /^text\/html/);
  assert.match(String(r.headers['content-security-policy']), /default-src 'none'/);
  assert.doesNotMatch(r.text, /<script/i);
  assert.equal(r.headers.vary, 'Accept');
});
