// GET /status on the zone host (SPEC 2.6, 4.4): body, codes, probe outcomes and the 10 s window.
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { loadConfig } from '../../../src/infra/config.js';
import { assertProblem } from '../../support/problem.js';
import { useStatusFixture } from '../../support/status.js';

const f = useStatusFixture();
const withoutLatency = (components: { latency_ms?: unknown }[]) => components.map(({ latency_ms: _, ...c }) => c);
beforeEach(async () => {
  await f.reset();
});

test('all components ok: 200 with broker, api, edge in that order and checked_at of the refresh', async () => {
  const before = f.s.clock.now().getTime();
  const r = await f.status();
  const afterMs = f.s.clock.now().getTime();
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  // The seed's three fields, then what API.md section 17 adds.
  assert.deepEqual(Object.keys(r.json), ['status', 'components', 'checked_at', 'incidents', 'maintenances']);
  assert.equal(r.json.status, 'ok');
  assert.deepEqual(withoutLatency(r.json.components), [
    { name: 'broker', ok: true, detail: 'ok' },
    { name: 'api', ok: true, detail: 'ok' },
    { name: 'edge', ok: true, detail: 'ok' },
  ]);
  assert.deepEqual(Object.keys(r.json.components[0]), ['name', 'ok', 'detail', 'latency_ms']);
  for (const c of r.json.components.slice(0, 2)) {
    assert.ok(Number.isInteger(c.latency_ms) && c.latency_ms >= 0 && c.latency_ms < 1000, `${c.name} latency ${c.latency_ms}`);
  }
  assert.equal(r.json.components[2].latency_ms, null, 'edge is not probed: no latency');
  assert.match(r.json.checked_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const checked = Date.parse(r.json.checked_at);
  assert.ok(checked >= before && checked <= afterMs, 'checked_at is the time of this refresh');
});

test('broker answering 503: 503 with the full body and detail "status 503"', async () => {
  await f.broker.set(503);
  const r = await f.status();
  assert.equal(r.status, 503);
  assert.equal(r.json.status, 'degraded');
  assert.deepEqual(withoutLatency(r.json.components), [
    { name: 'broker', ok: false, detail: 'status 503' },
    { name: 'api', ok: true, detail: 'ok' },
    { name: 'edge', ok: true, detail: 'ok' },
  ]);
  assert.ok(r.json.checked_at);
});

test('api refusing connections: down with the connection error message', async () => {
  await f.api.set('refuse');
  const r = await f.status();
  assert.equal(r.status, 503);
  const api = r.json.components[1];
  assert.equal(api.name, 'api');
  assert.equal(api.ok, false);
  assert.match(api.detail, /ECONNREFUSED/);
  assert.ok(Number.isInteger(api.latency_ms) && api.latency_ms < 1000, 'a refusal is measured too');
  assert.equal(r.json.components[0].ok, true);
  assert.equal(r.json.components[2].ok, true, 'edge is ok without a probe');
});

test('a hanging broker is cut at 2 seconds and reported down, api still probed in parallel', async () => {
  await f.broker.set('hang');
  const started = Date.now();
  const r = await f.status();
  const elapsed = Date.now() - started;
  assert.equal(r.status, 503);
  assert.deepEqual(withoutLatency(r.json.components)[0], { name: 'broker', ok: false, detail: 'timeout after 2000 ms' });
  const latency = r.json.components[0].latency_ms;
  assert.ok(latency >= 1950 && latency < 2500, `the broker's latency is the 2 s it was given (${latency})`);
  assert.ok(r.json.components[1].latency_ms < 1000, 'api answered quickly');
  assert.equal(r.json.components[1].ok, true);
  assert.ok(elapsed >= 1900 && elapsed < 2800, `bounded at 2 s (took ${elapsed} ms)`);
});

test('a half-open connection (accepted, never read) is cut at 2 seconds too', async () => {
  await f.api.set('half-open');
  const started = Date.now();
  const r = await f.status();
  const elapsed = Date.now() - started;
  assert.equal(r.status, 503);
  assert.deepEqual(withoutLatency(r.json.components)[1], { name: 'api', ok: false, detail: 'timeout after 2000 ms' });
  assert.equal(f.api.hits, 1, 'the connection was made');
  assert.ok(elapsed >= 1900 && elapsed < 2800, `bounded at 2 s (took ${elapsed} ms)`);
});

test('inside the 10 s window every request gets the cached roll-up; after it, probes run again', async () => {
  const first = await f.status();
  assert.equal(first.status, 200);
  assert.equal(f.broker.hits, 1);
  await f.broker.set(503);
  f.s.clock.advance(9_000);
  const cached = await f.status();
  assert.equal(cached.status, 200, 'the broker outage is not seen inside the window');
  assert.equal(cached.text, first.text, 'same body, same checked_at');
  assert.equal(f.broker.hits, 1, 'no probe inside the window');
  assert.equal(f.api.hits, 1);
  f.s.clock.advance(1_001);
  const refreshed = await f.status();
  assert.equal(refreshed.status, 503);
  assert.equal(refreshed.json.components[0].detail, 'status 503');
  assert.notEqual(refreshed.json.checked_at, first.json.checked_at);
  assert.equal(f.broker.hits, 2);
  assert.equal(f.api.hits, 2);
});

test('a degraded roll-up is cached too: recovery shows only after the window', async () => {
  await f.broker.set(503);
  assert.equal((await f.status()).status, 503);
  await f.broker.set(200);
  f.s.clock.advance(5_000);
  assert.equal((await f.status()).status, 503);
  f.s.clock.advance(5_001);
  assert.equal((await f.status()).status, 200);
});

test('the endpoint needs no credential and hands none out', async () => {
  const plain = await f.status();
  assert.equal(plain.status, 200);
  assert.equal(plain.headers['set-cookie'], undefined);
  const withJunk = await f.status({ bearer: 'not-a-token', cookie: 'session=forged' });
  assert.equal(withJunk.status, 200, 'a bad credential is ignored, not refused');
  assert.equal(withJunk.headers['set-cookie'], undefined);
  assert.doesNotMatch(plain.text, /token|password|secret/i);
});

test('any Accept other than text/html gets JSON; HEAD answers the headers only', async () => {
  for (const accept of ['application/json', '*/*', 'text/plain', 'application/json, text/html;q=0.5']) {
    const r = await f.status({ headers: { accept } });
    assert.match(String(r.headers['content-type']), /^application\/json/, accept);
    assert.equal(r.json.status, 'ok');
  }
  const head = await f.status({ method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  assert.ok(Number(head.headers['content-length']) > 0);
  assert.equal(head.headers.vary, 'Accept');
});

test('/status answers only on the zone host; the zone host serves /healthz and 404 elsewhere', async () => {
  assert.equal((await f.s.request('/status')).status, 404, 'not an API-host path');
  const health = await f.s.request('/healthz', { host: 'status-test.localhost' });
  assert.equal(health.status, 200);
  assert.equal(health.text, 'ok');
  assertProblem(await f.s.request('/nope', { host: 'status-test.localhost' }), 404, 'NOT_FOUND');
  const post = await f.status({ method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
});

test('Query.status gives the same roll-up from the same cache', async () => {
  const rest = await f.status();
  const gql = await f.s.request('/graphql', {
    method: 'POST',
    body: { query: '{ status { status checkedAt components { name ok detail latencyMs } } }' },
  });
  assert.equal(gql.status, 200);
  assert.deepEqual(
    gql.json.data.status.components,
    rest.json.components.map(({ latency_ms, ...c }: { latency_ms: number | null }) => ({ ...c, latencyMs: latency_ms })),
  );
  assert.equal(gql.json.data.status.status, 'ok');
  assert.equal(new Date(gql.json.data.status.checkedAt).toISOString(), rest.json.checked_at);
  assert.equal(f.broker.hits, 1, 'GraphQL read the cached roll-up');
});

test('API_HEALTH_URL defaults to this server\'s own /healthz on PORT', () => {
  assert.equal(loadConfig({ PORT: '4321' }).apiHealthUrl, 'http://127.0.0.1:4321/healthz');
});
