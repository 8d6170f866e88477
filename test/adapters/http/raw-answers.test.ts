// The raw handlers' recurring answers reach node's writeHead as flat lists of strings (problem.ts,
// headerList): one shape for node's header writer on every hot and frequent path, /healthz
// included, which load balancers and the roll-up's api probe ask every few seconds.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { test } from 'node:test';
import pino from 'pino';
import { createCardHandlers } from '../../../src/adapters/http/card-host.js';
import { problemResponse, writeProblem } from '../../../src/adapters/http/problem.js';
import { createZoneHandler } from '../../../src/adapters/http/zone-host.js';
import { notFound } from '../../../src/domain/errors.js';
import type { Resolution } from '../../../src/domain/cards/lookup.js';
import { createMetrics } from '../../../src/infra/observability/metrics.js';

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

function assertStringList(w: Written, what: string): void {
  assert.ok(Array.isArray(w.headers), `${what}: headers are a list`);
  const list = w.headers as unknown[];
  assert.equal(list.length % 2, 0, `${what}: name/value pairs`);
  assert.ok(list.every((v) => typeof v === 'string'), `${what}: every name and value a string: ${JSON.stringify(list)}`);
  // A 204 carries none; any other answer says its length, as a string.
  if (w.status === 204) return;
  assert.ok(list.includes('content-length'), `${what}: has a content-length`);
  const length = list[list.indexOf('content-length') + 1];
  assert.equal(length, String(Buffer.byteLength(String(w.body ?? ''))), `${what}: content-length matches the body`);
}

test('zone host: /healthz, its 404 and its 405 are lists of strings', () => {
  const status = {
    fresh: () => null,
    current: () => Promise.reject(new Error('not used')),
    freshHistory: () => null,
    currentHistory: () => Promise.reject(new Error('not used')),
  };
  const zone = createZoneHandler({ status, metrics: createMetrics() });
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
    assertStringList(x.written[0]!, `${method} ${url}`);
  }
});

test('card hosts: the 404, the 405 and the preflight are lists of strings', () => {
  const none: Resolution = { kind: 'none', tunnelId: null };
  const cards = createCardHandlers({
    resolver: { peek: () => none, resolve: () => Promise.resolve(none) },
    metrics: createMetrics(),
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
    assertStringList(x.written[0]!, `${method} ${url}`);
  }
});

test('problem answers carry their content-length as a string, written by the raw handlers as a list', () => {
  assert.equal(problemResponse(notFound()).headers['content-length'], String(Buffer.byteLength(problemResponse(notFound()).body)));
  const x = exchange('GET', '/');
  writeProblem(x.res, notFound(), { 'retry-after': '5' });
  assertStringList(x.written[0]!, 'writeProblem');
  assert.deepEqual((x.written[0]!.headers as string[]).slice(-2), ['retry-after', '5']);
});
