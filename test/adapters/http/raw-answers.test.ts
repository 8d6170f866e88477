// The raw handlers' recurring answers (cards, /status, badges, /healthz, their 404s): the right
// status, headers whose values are all strings with a content-length that matches the body, and
// rendered once, not per request.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { test } from 'node:test';
import pino from 'pino';
import { createCardHandlers } from '../../../src/adapters/edge/card-host.js';
import { problemResponse, writeProblem } from '../../../src/adapters/problem.js';
import { createZoneHandler } from '../../../src/adapters/edge/zone-host.js';
import { statusViews } from '../../../src/adapters/edge/status/views.js';
import { card } from '../../../src/domain/cards/card.js';
import { notFound, PROBLEMS } from '../../../src/domain/errors.js';
import type { Resolution } from '../../../src/domain/cards/lookup.js';
import type { History } from '../../../src/domain/status/history.js';
import type { Snapshot } from '../../../src/domain/status/service.js';
import { createMetrics } from '../../../src/infra/observability/metrics.js';

const BASE = 'https://api.example';

interface Written {
  status: number;
  headers: unknown;
  body: unknown;
}

function exchange(method: string, url: string): { req: IncomingMessage; res: ServerResponse; written: Written[] } {
  const written: Written[] = [];
  let pending: Omit<Written, 'body'> | null = null;
  const req = { method, url, headers: {}, rawHeaders: [] } as unknown as IncomingMessage;
  const res = {
    headersSent: false,
    writeHead(status: number, headers: unknown) {
      pending = { status, headers };
      return this;
    },
    end(body?: unknown) {
      written.push({ ...pending!, body });
    },
  } as unknown as ServerResponse;
  return { req, res, written };
}

function assertStringHeaders(w: Written, what: string): Record<string, string> {
  assert.ok(w.headers !== null && typeof w.headers === 'object' && !Array.isArray(w.headers), `${what}: headers are an object`);
  const headers = w.headers as Record<string, unknown>;
  assert.ok(Object.values(headers).every((v) => typeof v === 'string'), `${what}: every value a string: ${JSON.stringify(headers)}`);
  // A 204 or a 304 carries none; any other answer says its length, as a string.
  if (w.status !== 204 && w.status !== 304) {
    assert.equal(headers['content-length'], String(Buffer.byteLength(String(w.body ?? ''))), `${what}: content-length matches the body`);
  }
  return headers as Record<string, string>;
}

test('zone host: /healthz, its 404 and its 405 carry string headers and their length', () => {
  const status = {
    fresh: () => null,
    current: () => Promise.reject(new Error('not used')),
    freshHistory: () => null,
    currentHistory: () => Promise.reject(new Error('not used')),
  };
  const incidents = () => Promise.reject(new Error('not used'));
  const zone = createZoneHandler({ status, incidents, feed: incidents, views: statusViews('Svc'), metrics: createMetrics(), baseUrl: BASE });
  for (const [method, url, code] of [
    ['GET', '/healthz', 200],
    ['HEAD', '/healthz?probe=1', 200],
    ['GET', '/nowhere', 404],
    ['POST', '/healthz', 405],
  ] as const) {
    const x = exchange(method, url);
    zone(x.req, x.res, 'status.example');
    assert.equal(x.written.length, 1);
    assert.equal(x.written[0]!.status, code, `${method} ${url}`);
    assertStringHeaders(x.written[0]!, `${method} ${url}`);
  }
});

test('card hosts: the 404, the 405 and the preflight carry string headers and their length', () => {
  const none: Resolution = { kind: 'none', tunnelId: null, prm: null };
  const cards = createCardHandlers({
    resolver: { peek: () => none, resolve: () => Promise.resolve(none) },
    metrics: createMetrics(),
    baseUrl: BASE,
    logger: pino({ level: 'silent' }),
  });
  for (const [method, url, code] of [
    ['GET', '/.well-known/mcp/server-card.json', 404],
    ['GET', '/elsewhere', 404],
    ['DELETE', '/.well-known/mcp/server-card.json', 405],
    ['OPTIONS', '/.well-known/mcp/server-card.json', 204],
  ] as const) {
    const x = exchange(method, url);
    cards.tunnelHost(x.req, x.res, 'a--b.tunnels.example');
    assert.equal(x.written[0]!.status, code, `${method} ${url}`);
    assertStringHeaders(x.written[0]!, `${method} ${url}`);
  }
});

const ROLLUP = {
  status: 'degraded',
  checked_at: '2026-11-27T10:00:00.000Z',
  components: [
    { name: 'broker', ok: true, detail: 'ok', latency_ms: 3 },
    { name: 'api', ok: true, detail: 'ok', latency_ms: 1 },
    { name: 'edge', ok: false, detail: 'unreachable', latency_ms: null },
  ],
  incidents: [],
  maintenances: [],
} as unknown as Snapshot['rollup'];
const HISTORY = { components: [] } as unknown as History;

test('zone host: /status, badges and history are rendered once per snapshot', () => {
  let snapshot: Snapshot = { rollup: ROLLUP, expiresAtMs: Infinity, history: null };
  const status = {
    fresh: () => snapshot,
    current: () => Promise.resolve(snapshot),
    freshHistory: () => HISTORY,
    currentHistory: () => Promise.resolve(HISTORY),
  };
  const views = statusViews('Svc');
  const incidents = () => Promise.reject(new Error('not used'));
  const zone = createZoneHandler({ status, incidents, feed: incidents, views, metrics: createMetrics(), baseUrl: BASE });
  const answers = (): Written[] =>
    [
      ['GET', '/status', 503],
      ['HEAD', '/status', 503],
      ['GET', '/status/badge.svg', 200],
      ['GET', '/status/edge/badge.svg', 200],
      ['GET', '/status/badge.json', 200],
      ['GET', '/status/history', 200],
    ].map(([method, url, code]) => {
      const x = exchange(method as string, url as string);
      zone(x.req, x.res, 'status.example');
      assert.equal(x.written[0]!.status, code, `${method} ${url}`);
      if (method === 'GET') assertStringHeaders(x.written[0]!, `${method} ${url}`);
      return x.written[0]!;
    });
  const first = answers();
  assert.equal(JSON.parse(String(first[0]!.body)).status, 'degraded');
  assert.match(String(first[3]!.body), /down/);
  // The same snapshot: the very same headers (nothing rendered again).
  const view = views.of(snapshot);
  assert.equal(views.of(snapshot), view);
  const again = answers();
  for (let i = 0; i < first.length; i++) assert.equal(again[i]!.headers, first[i]!.headers);
  // A new snapshot (the history was read again): rendered anew, the page shows it.
  snapshot = { ...snapshot, history: HISTORY };
  assert.notEqual(views.of(snapshot), view);
  assert.notEqual(views.of(snapshot).html.body, view.html.body);
});

test('card hosts: a card and its 304, made once per card object', () => {
  const served = card('t1', JSON.stringify({ name: 'io.service/a--b' }), '{"v":1}', '{"c":1}', null);
  const other = card('t2', JSON.stringify({ name: 'io.service/c--d' }), '{"v":2}', '{"c":2}', null);
  let current: Resolution = served;
  const cards = createCardHandlers({
    resolver: { peek: () => current, resolve: () => Promise.resolve(current) },
    metrics: createMetrics(),
    baseUrl: BASE,
    logger: pino({ level: 'silent' }),
  });
  const get = (headers: Record<string, string> = {}): Written => {
    const x = exchange('GET', '/.well-known/mcp/server-card.json');
    (x.req as unknown as { rawHeaders: string[] }).rawHeaders = Object.entries(headers).flat();
    (x.req as unknown as { headers: Record<string, string> }).headers = headers;
    cards.tunnelHost(x.req, x.res, 'a--b.tunnels.example');
    return x.written[0]!;
  };
  const ok = get();
  assert.equal(ok.status, 200);
  assert.equal(ok.body, served.json);
  const etag = assertStringHeaders(ok, 'card 200').etag!;
  assert.match(etag, /^"[A-Za-z0-9_-]{32}"$/);
  assert.equal(get().headers, ok.headers, 'the same card: the same headers');
  const notModified = get({ 'if-none-match': `W/${etag}` });
  assert.equal(notModified.status, 304);
  assert.equal(assertStringHeaders(notModified, 'card 304').etag, etag);
  current = other;
  const second = get();
  assert.equal(second.body, other.json);
  assert.notEqual(assertStringHeaders(second, 'other card').etag, etag);
  current = served;
  assert.equal(get().headers, ok.headers, 'alternating cards keep their views');
});

test('problem answers carry their content-length as a string, and the extra headers', () => {
  assert.equal(problemResponse(notFound(PROBLEMS.notFound), BASE).headers['content-length'], String(Buffer.byteLength(problemResponse(notFound(PROBLEMS.notFound), BASE).body)));
  const x = exchange('GET', '/');
  writeProblem(x.res, notFound(PROBLEMS.notFound), BASE, { 'retry-after': '5' });
  assert.equal(assertStringHeaders(x.written[0]!, 'writeProblem')['retry-after'], '5');
});
