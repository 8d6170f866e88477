// Liveness and readiness: /healthz answers on both hosts while the process runs; /readyz on the
// API host answers 200 only while the database and the cache are reachable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertProblem } from '../../support/problem.js';
import { ZONE, useStatusFixture } from '../../support/status.js';

const f = useStatusFixture();

test('/healthz answers 200 "ok" on the API host and on the zone host', async () => {
  for (const host of ['localhost', ZONE]) {
    const r = await f.s.request('/healthz', { host });
    assert.equal(r.status, 200, host);
    assert.equal(r.text, 'ok', host);
  }
});

test('GET and HEAD /healthz on the API host are answered before Fastify, like the zone host; other methods still reach it', async () => {
  // The raw answer is the zone host's: it carries cache-control no-store (Fastify's replies
  // would not), with or without a query string.
  for (const [host, path] of [['localhost', '/healthz'], ['localhost', '/healthz?probe=1'], [ZONE, '/healthz']] as const) {
    const get = await f.s.request(path, { host });
    assert.equal(get.status, 200, host);
    assert.equal(get.headers['content-type'], 'text/plain; charset=utf-8', host);
    assert.equal(get.headers['cache-control'], 'no-store', `${host}: the raw answer`);
    assert.equal(get.text, 'ok', host);
    const head = await f.s.request(path, { host, method: 'HEAD' });
    assert.equal(head.status, 200, host);
    assert.equal(head.text, '', host);
  }
  assertProblem(await f.s.request('/healthz', { method: 'POST' }), 404, 'NOT_FOUND');
});

test('/readyz: 200 with database and cache ok', async () => {
  const r = await f.s.request('/readyz');
  assert.equal(r.status, 200);
  assert.deepEqual(r.json, { status: 'ready', checks: { database: 'ok', cache: 'ok' } });
});

test('/readyz: 503 problem+json naming the cache when the cache does not answer', async () => {
  const cache = f.s.deps.cache;
  const ping = cache.ping;
  cache.ping = () => Promise.reject(new Error('connection lost'));
  try {
    const r = await f.s.request('/readyz');
    assertProblem(r, 503, 'UNAVAILABLE');
    assert.match(r.json.detail, /cache/);
    assert.doesNotMatch(r.json.detail, /database|connection lost/);
  } finally {
    cache.ping = ping;
  }
  assert.equal((await f.s.request('/readyz')).status, 200, 'ready again once the cache answers');
});

test('/readyz: 503 naming the database when a query fails', async () => {
  const db = f.s.deps.db;
  const query = db.$queryRawUnsafe;
  db.$queryRawUnsafe = (() => Promise.reject(new Error('ECONNREFUSED'))) as typeof query;
  try {
    const r = await f.s.request('/readyz');
    assertProblem(r, 503, 'UNAVAILABLE');
    assert.match(r.json.detail, /database/);
  } finally {
    db.$queryRawUnsafe = query;
  }
  assert.equal((await f.s.request('/readyz')).status, 200);
});

test('/readyz: a cache that hangs is reported unreachable within the 2 s bound', async () => {
  const cache = f.s.deps.cache;
  const ping = cache.ping;
  cache.ping = () => new Promise<void>(() => {});
  try {
    const started = Date.now();
    const r = await f.s.request('/readyz');
    assertProblem(r, 503, 'UNAVAILABLE');
    assert.match(r.json.detail, /cache/);
    assert.ok(Date.now() - started < 2800, 'bounded');
  } finally {
    cache.ping = ping;
  }
});
