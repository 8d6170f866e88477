// The HTML status page in a real browser (headless Chromium): no scripts, the verdict,
// checked_at, one row per component with a green "ok" or red "down" marker, readable on a phone;
// each component's uptimes and its 90-day strip (inline SVG), screenshots in test-artifacts/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ARTIFACTS, useBrowser } from '../../support/browser.js';
import { STRIP_COLORS } from '../../../src/adapters/edge/status/page.js';
import { DAY_MS, midnightOf, useStatusFixture, ZONE } from '../../support/status.js';

const f = useStatusFixture();
// The zone host must be the Host header, and pages cannot set it: resolve it to loopback.
const browser = useBrowser({ hostMap: [ZONE] });

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
    checkedText: document.querySelector('time')?.textContent ?? '',
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
  // People read it as a date and a UTC time, to the second.
  const at = new Date(json.json.checked_at);
  const hms = at.toISOString().slice(11, 19);
  assert.equal(p.checkedText, `${at.getUTCDate()} ${at.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' })} ${at.getUTCFullYear()}, ${hms} UTC`);
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

test('history: uptimes and a 90-day strip per component, as inline SVG, readable at 360 px (screenshot)', async () => {
  const db = f.s.deps.db;
  await db.statusHistoryDay.deleteMany({});
  await db.statusHistoryMinute.deleteMany({});
  await f.reset();
  const today = midnightOf(f.s.clock.now().getTime());
  const day = (n: number) => new Date(today - n * DAY_MS);
  await db.statusHistoryDay.createMany({
    data: [
      { component: 'broker', day: day(1), checks: 8640, failures: 0 },
      { component: 'broker', day: day(2), checks: 8640, failures: 43 },
      { component: 'broker', day: day(3), checks: 100, failures: 50 },
      { component: 'api', day: day(40), checks: 10, failures: 0 },
    ],
  });
  // The next refresh records today's check and reads the history for the page.
  assert.equal((await f.status()).status, 200);

  const context = await browser().newContext({ viewport: { width: 360, height: 780 }, deviceScaleFactor: 2, isMobile: true });
  const page = await context.newPage();
  const response = await page.goto(`http://${ZONE}:${new URL(f.s.url).port}/status`);
  assert.equal(response?.status(), 200);
  const info = await page.evaluate(() => {
    const strips = [...document.querySelectorAll('.component')].map((c) => {
      const svg = c.querySelector('svg.strip') as SVGSVGElement;
      const box = svg.getBoundingClientRect();
      const rects = [...svg.querySelectorAll('rect')];
      return {
        name: c.getAttribute('data-component'),
        bars: rects.length,
        fills: rects.map((r) => r.getAttribute('fill')),
        titles: rects.map((r) => r.querySelector('title')?.textContent ?? ''),
        barWidth: rects[0]!.getBoundingClientRect().width,
        left: box.left,
        right: box.right,
        height: box.height,
        uptimes: Object.fromEntries([...c.querySelectorAll('dd')].map((dd) => [dd.getAttribute('data-window'), dd.textContent])),
      };
    });
    return {
      strips,
      scripts: document.querySelectorAll('script').length,
      overflow: document.documentElement.scrollWidth > window.innerWidth,
      width: window.innerWidth,
    };
  });
  await page.screenshot({ path: new URL('status-history-360.png', ARTIFACTS).pathname, fullPage: true });
  await context.close();

  assert.equal(info.scripts, 0);
  assert.equal(info.overflow, false, 'no horizontal scrolling at 360 px');
  assert.deepEqual(info.strips.map((s) => s.name), ['broker', 'api', 'edge']);
  const [broker, api, edge] = info.strips;
  for (const s of info.strips) {
    assert.equal(s.bars, 90, `${s.name}: one bar per day`);
    assert.ok(s.left >= 0 && s.right <= info.width, `${s.name}: the strip fits the screen (${s.left}..${s.right})`);
    assert.ok(s.barWidth >= 2, `${s.name}: bars stay visible (${s.barWidth} px)`);
    assert.ok(s.height >= 24, `${s.name}: strip height ${s.height}`);
  }
  const { full, partial, poor, none } = STRIP_COLORS;
  assert.deepEqual(broker!.fills.slice(86), [poor, partial, full, full], 'broker: 3 days ago red, then amber, green, today green');
  assert.ok(broker!.fills.slice(0, 86).every((c) => c === none), 'no data before: grey');
  assert.match(broker!.titles[87]!, /: 99\.50% up \(8640 checks, 43 failed\)$/);
  assert.match(broker!.titles[0]!, /: no data$/);
  // 7 days: 17381 checks, 93 failed → 99.46 (rounded down); 24 h: today's one check.
  assert.deepEqual(broker!.uptimes, { '24h': '100.00%', '7d': '99.46%', '30d': '99.46%', '90d': '99.46%' });
  assert.equal(api!.fills[49], full, 'api: 40 days ago');
  assert.deepEqual(api!.uptimes, { '24h': '100.00%', '7d': '100.00%', '30d': '100.00%', '90d': '100.00%' });
  assert.deepEqual(edge!.fills.slice(88), [none, full]);
});

test('degraded with a connection error: the long detail wraps, nothing overflows at 360 px (screenshot)', async () => {
  await f.reset();
  await f.api.set('refuse');
  const context = await browser().newContext({ viewport: { width: 360, height: 780 }, deviceScaleFactor: 2, isMobile: true });
  const page = await context.newPage();
  const response = await page.goto(`http://${ZONE}:${new URL(f.s.url).port}/status`);
  assert.equal(response?.status(), 503);
  const info = await page.evaluate(() => ({
    detail: document.querySelector('tr[data-component="api"] .detail')?.textContent ?? '',
    latency: document.querySelector('tr[data-component="edge"] .latency')?.textContent ?? '',
    overflow: document.documentElement.scrollWidth > window.innerWidth,
  }));
  await page.screenshot({ path: new URL('status-degraded-360.png', ARTIFACTS).pathname, fullPage: true });
  await context.close();
  assert.match(info.detail, /ECONNREFUSED 127\.0\.0\.1:\d+/);
  assert.equal(info.latency, '—', 'edge has no latency');
  assert.equal(info.overflow, false);
});

test('an open incident and a maintenance show above the components at 1280 and 360 px, nothing overflows (screenshots)', async () => {
  const { createIncident, createMaintenance } = await import('../../../src/domain/status/incidents.js');
  const db = f.s.deps.db;
  await db.statusIncident.deleteMany({});
  await db.statusMaintenance.deleteMany({});
  await createIncident(f.s.deps, {
    title: 'Tunnels on the edge fail to start for some accounts in one region',
    impact: 'major',
    components: ['edge', 'broker'],
    status: 'identified',
    message: 'A configuration change left one edge pool without certificates; we are rolling it back now. https://example.com/a-very-long-link-that-should-wrap-instead-of-overflowing-the-page',
  });
  const now = f.s.clock.now().getTime();
  await createMaintenance(f.s.deps, {
    title: 'Database upgrade',
    components: ['api'],
    starts_at: new Date(now + 2 * DAY_MS).toISOString(),
    ends_at: new Date(now + 2 * DAY_MS + 3600_000).toISOString(),
    message: 'Sign-in may pause for up to a minute.',
  });
  await f.reset();
  for (const [width, name] of [
    [1280, 'status-incident-1280.png'],
    [360, 'status-incident-360.png'],
  ] as const) {
    const context = await browser().newContext({ viewport: { width, height: 800 }, deviceScaleFactor: width === 360 ? 2 : 1, isMobile: width === 360 });
    const page = await context.newPage();
    const response = await page.goto(`http://${ZONE}:${new URL(f.s.url).port}/status`);
    assert.equal(response?.status(), 200);
    const info = await page.evaluate(() => {
      return {
        verdict: document.querySelector('.verdict')?.textContent ?? '',
        headings: [...document.querySelectorAll('h2')].map((h) => h.textContent),
        incident: document.querySelector('[data-incident] h3')?.textContent ?? '',
        tags: [...document.querySelectorAll('[data-incident] .tag')].map((t) => t.textContent),
        maintenance: document.querySelector('[data-maintenance] h3')?.textContent ?? '',
        order: ['[data-incident]', '[data-maintenance]', 'table'].map((sel) => document.querySelector(sel)?.getBoundingClientRect().top ?? -1),
        scripts: document.querySelectorAll('script').length,
        overflow: document.documentElement.scrollWidth > window.innerWidth,
      };
    });
    await page.screenshot({ path: new URL(name, ARTIFACTS).pathname, fullPage: true });
    await context.close();
    assert.equal(info.verdict, 'All systems operational · 1 open incident below');
    assert.deepEqual(info.headings.slice(0, 2), ['Incidents', 'Planned maintenance']);
    assert.match(info.incident, /^Tunnels on the edge fail/);
    assert.deepEqual(info.tags, ['Identified', 'Major impact']);
    assert.equal(info.maintenance, 'Database upgrade');
    assert.ok(info.order[0]! > 0 && info.order[0]! < info.order[1]! && info.order[1]! < info.order[2]!, `incident, then maintenance, then components: ${info.order.join(', ')}`);
    assert.equal(info.scripts, 0);
    assert.equal(info.overflow, false, `nothing overflows at ${width} px`);
  }
  await db.statusIncident.deleteMany({});
  await db.statusMaintenance.deleteMany({});
});

/** The console's accent (its primary buttons' blue), read from its stylesheet: the status page's button must match it. */
function consoleAccent(): number[] {
  const css = readFileSync(new URL('../../../src/adapters/console/client/console.css', import.meta.url), 'utf8');
  const hex = /--accent:\s*#([0-9a-f]{6})\b/i.exec(css)?.[1];
  assert.ok(hex, 'the console stylesheet defines --accent');
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
}

test('/status/incidents in a browser: 90 days of incidents with every update, in the status page look; Subscribe is the console blue', async () => {
  const { createIncident, addIncidentUpdate } = await import('../../../src/domain/status/incidents.js');
  const db = f.s.deps.db;
  await db.statusIncident.deleteMany({});
  const opened = await createIncident(f.s.deps, { title: 'Slow <tunnel> starts', impact: 'minor', components: ['edge'], status: 'investigating', message: 'Looking into it.' });
  f.s.clock.advance(60_000);
  await addIncidentUpdate(f.s.deps, opened.id, { status: 'resolved', message: 'A slow resolver, replaced.' });
  await f.reset(); // past the few seconds an instance keeps the list
  const port = new URL(f.s.url).port;
  const context = await browser().newContext({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true });
  try {
    const page = await context.newPage();
    const response = await page.goto(`http://${ZONE}:${port}/status/incidents`);
    assert.equal(response?.status(), 200);
    assert.match(response?.headers()['content-type'] ?? '', /^text\/html/);
    const info = await page.evaluate(() => ({
      title: document.title,
      heading: document.querySelector('h2')?.textContent,
      incident: document.querySelector('[data-incident] h3')?.textContent,
      updates: [...document.querySelectorAll('[data-incident] .timeline li .tag')].map((t) => t.textContent),
      links: [...document.querySelectorAll('.links a')].map((a) => a.getAttribute('href')),
      background: getComputedStyle(document.body).backgroundColor,
      scripts: document.querySelectorAll('script').length,
      overflow: document.documentElement.scrollWidth > window.innerWidth,
    }));
    await page.screenshot({ path: new URL('status-incidents-360.png', ARTIFACTS).pathname, fullPage: true });
    assert.match(info.title, /^Past incidents · .+ status$/);
    assert.equal(info.heading, 'Incidents of the last 90 days');
    assert.equal(info.incident, 'Slow <tunnel> starts', 'the title as text');
    assert.deepEqual(info.updates, ['Resolved', 'Investigating'], 'every update, newest first');
    assert.deepEqual(info.links, ['/status', '/status/incidents', '/status/feed.atom']);
    assert.equal(info.scripts, 0);
    assert.equal(info.overflow, false);

    await page.goto(`http://${ZONE}:${port}/status`);
    const status = await page.evaluate(() => ({
      background: getComputedStyle(document.body).backgroundColor,
      button: getComputedStyle(document.querySelector('.subscribe button')!).backgroundColor,
      links: [...document.querySelectorAll('.links a')].map((a) => a.getAttribute('href')),
    }));
    assert.equal(info.background, status.background, 'the same look as /status');
    assert.deepEqual(rgb(status.button), consoleAccent(), 'the console primary button colour');
    assert.ok(status.links.includes('/status/incidents'));
    // Machines still get the JSON, from the same read.
    const json = await f.zone('/status/incidents', { headers: { accept: 'application/json' } });
    assert.match(String(json.headers['content-type']), /^application\/json/);
    assert.equal(json.headers.vary, 'Accept');
    assert.deepEqual(json.json.incidents.map((i: { id: string; updates: unknown[] }) => [i.id, i.updates.length]), [[opened.id, 2]]);
  } finally {
    await context.close();
    await db.statusIncident.deleteMany({});
  }
});
