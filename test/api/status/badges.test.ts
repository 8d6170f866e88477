// Status badges (API.md 11): /status/badge.svg and /status/<component>/badge.svg are SVG made by
// badge-maker, parsed and rendered by Chromium as SVG; /status/badge.json is the shields.io
// endpoint object; all answer 200 with Cache-Control: no-cache and follow the roll-up's window.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useBrowser } from '../../support/browser.js';
import { assertProblem } from '../../support/problem.js';
import { useStatusFixture, ZONE } from '../../support/status.js';

const f = useStatusFixture();
const browser = useBrowser({ hostMap: [ZONE] });

interface ParsedBadge {
  root: string;
  namespace: string | null;
  errors: number;
  label: string | null;
  title: string;
  width: number;
  height: number;
  fills: string[];
  scripts: number;
  /** The badge loaded as an <img>: its decoded size. */
  image: { width: number; height: number };
}

/** The badge as Chromium sees it: parsed as image/svg+xml, then decoded as an image. */
async function parseBadge(path: string): Promise<ParsedBadge> {
  const page = await browser().newPage();
  try {
    const url = `http://${ZONE}:${new URL(f.s.url).port}${path}`;
    const svg = (await f.zone(path)).text;
    // A page of the zone's own origin, so the <img> below is a plain same-origin image.
    await page.goto(`http://${ZONE}:${new URL(f.s.url).port}/healthz`);
    return await page.evaluate(
      async ({ svg, url }) => {
        const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
        const root = doc.documentElement;
        const img = new Image();
        img.src = url;
        await img.decode();
        return {
          root: root.tagName,
          namespace: root.namespaceURI,
          errors: doc.getElementsByTagName('parsererror').length,
          label: root.getAttribute('aria-label'),
          title: root.querySelector('title')?.textContent ?? '',
          width: Number(root.getAttribute('width')),
          height: Number(root.getAttribute('height')),
          fills: [...root.querySelectorAll('g rect')].map((r) => r.getAttribute('fill') ?? ''),
          scripts: root.getElementsByTagName('script').length,
          image: { width: img.naturalWidth, height: img.naturalHeight },
        };
      },
      { svg, url },
    );
  } finally {
    await page.close();
  }
}

const GREEN = '#4b0'; // badge-maker's brightgreen
const RED = '#dd4343'; // badge-maker's red

test('all ok: the overall and component badges are well-formed SVG saying operational / up, no-cache', async () => {
  await f.reset();
  const r = await f.zone('/status/badge.svg');
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /^image\/svg\+xml/);
  assert.equal(r.headers['cache-control'], 'no-cache');
  assert.equal(Number(r.headers['content-length']), Buffer.byteLength(r.text));
  const overall = await parseBadge('/status/badge.svg');
  assert.equal(overall.errors, 0, 'parses as XML');
  assert.equal(overall.root, 'svg');
  assert.equal(overall.namespace, 'http://www.w3.org/2000/svg');
  assert.equal(overall.scripts, 0);
  assert.equal(overall.label, 'status: operational');
  assert.equal(overall.title, 'status: operational');
  assert.ok(overall.fills.includes(GREEN), `green message (${overall.fills.join(' ')})`);
  assert.deepEqual(overall.image, { width: overall.width, height: overall.height }, 'Chromium decodes it as an image');
  assert.equal(overall.height, 20);
  for (const name of ['broker', 'api', 'edge']) {
    const b = await parseBadge(`/status/${name}/badge.svg`);
    assert.equal(b.errors, 0);
    assert.equal(b.label, `${name}: up`);
    assert.ok(b.fills.includes(GREEN));
  }
  assert.equal(f.broker.hits, 1, 'one refresh for all of them');
});

test('broker down: overall "degraded" in red, broker "down", api still "up"; badges answer 200 while /status answers 503', async () => {
  await f.reset();
  await f.broker.set(503);
  assert.equal((await f.status()).status, 503);
  const overall = await parseBadge('/status/badge.svg');
  assert.equal(overall.label, 'status: degraded');
  assert.ok(overall.fills.includes(RED));
  assert.ok(!overall.fills.includes(GREEN));
  const broker = await parseBadge('/status/broker/badge.svg');
  assert.equal(broker.label, 'broker: down');
  assert.ok(broker.fills.includes(RED));
  assert.equal((await parseBadge('/status/api/badge.svg')).label, 'api: up');
  assert.equal((await f.zone('/status/broker/badge.svg')).status, 200);
  assert.equal(f.broker.hits, 1, 'served from the cached roll-up');
});

test('/status/badge.json is the shields.io endpoint object', async () => {
  await f.reset();
  const ok = await f.zone('/status/badge.json');
  assert.equal(ok.status, 200);
  assert.match(String(ok.headers['content-type']), /^application\/json/);
  assert.equal(ok.headers['cache-control'], 'no-cache');
  assert.equal(ok.headers['access-control-allow-origin'], '*');
  assert.deepEqual(ok.json, { schemaVersion: 1, label: 'status', message: 'operational', color: 'brightgreen' });
  await f.reset();
  await f.api.set('refuse');
  const down = await f.zone('/status/badge.json');
  assert.equal(down.status, 200);
  assert.deepEqual(down.json, { schemaVersion: 1, label: 'status', message: 'degraded', color: 'red' });
});

test('a badge follows the roll-up window: the same bytes inside it, the new verdict after it', async () => {
  await f.reset();
  const first = await f.zone('/status/broker/badge.svg');
  await f.broker.set(503);
  f.s.clock.advance(9_000);
  const inside = await f.zone('/status/broker/badge.svg');
  assert.equal(inside.text, first.text);
  assert.equal(f.broker.hits, 1);
  f.s.clock.advance(1_001);
  const after = await f.zone('/status/broker/badge.svg');
  assert.notEqual(after.text, first.text);
  assert.match(after.text, /aria-label="broker: down"/);
  assert.equal(f.broker.hits, 2);
});

test('unknown component: 404 problem; methods other than GET and HEAD: 405; HEAD: headers only', async () => {
  assertProblem(await f.zone('/status/nope/badge.svg'), 404, 'NOT_FOUND');
  assertProblem(await f.zone('/status/badge.png'), 404, 'NOT_FOUND');
  const post = await f.zone('/status/badge.svg', { method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
  assert.equal((await f.zone('/status/api/badge.svg', { method: 'DELETE' })).status, 405);
  const head = await f.zone('/status/badge.svg', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  assert.ok(Number(head.headers['content-length']) > 500);
});

test('badge and history requests are labelled by route pattern in the duration histogram, never by raw path', async () => {
  await f.reset();
  for (const path of ['/status/broker/badge.svg', '/status/api/badge.svg', '/status/badge.svg', '/status/badge.json', '/status/history']) {
    assert.equal((await f.zone(path)).status, 200, path);
  }
  const text = (await f.s.request('/metrics')).text;
  for (const route of ['/status/<component>/badge.svg', '/status/badge.svg', '/status/badge.json', '/status/history']) {
    assert.match(text, new RegExp(`http_request_duration_seconds_count\\{[^}]*route="${route.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"`), route);
  }
  assert.doesNotMatch(text, /route="\/status\/(broker|api)\/badge\.svg"/);
});
