// Telemetry of the roll-up on /metrics (SPEC 6): the probe-outcome counter (cache misses only,
// edge counted once per refresh), default process metrics, route-pattern duration labels, and
// the METRICS_TOKEN bearer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertProblem } from '../../support/problem.js';
import { startTestServer } from '../../support/server.js';
import { statusCount, useStatusFixture } from '../../support/status.js';

const f = useStatusFixture();

test('each refresh counts one outcome per component; cached answers count nothing', async () => {
  await f.reset();
  const base = {
    brokerOk: await statusCount(f.s, 'broker', true),
    brokerDown: await statusCount(f.s, 'broker', false),
    apiOk: await statusCount(f.s, 'api', true),
    edgeOk: await statusCount(f.s, 'edge', true),
  };
  assert.equal((await f.status()).status, 200);
  for (let i = 0; i < 5; i++) await f.status();
  assert.equal(await statusCount(f.s, 'broker', true), base.brokerOk + 1);
  assert.equal(await statusCount(f.s, 'api', true), base.apiOk + 1);
  assert.equal(await statusCount(f.s, 'edge', true), base.edgeOk + 1);

  await f.broker.set(503);
  f.s.clock.advance(10_001);
  assert.equal((await f.status()).status, 503);
  await f.status();
  assert.equal(await statusCount(f.s, 'broker', false), base.brokerDown + 1);
  assert.equal(await statusCount(f.s, 'broker', true), base.brokerOk + 1);
  assert.equal(await statusCount(f.s, 'api', true), base.apiOk + 2);
  assert.equal(await statusCount(f.s, 'edge', true), base.edgeOk + 2, 'edge adds one ok per refresh');
  assert.equal(await statusCount(f.s, 'edge', false), 0, 'edge is never down');
});

test('/metrics carries default process metrics and durations by route pattern, never raw paths or hosts', async () => {
  await f.reset();
  await f.status();
  await f.s.request('/status?probe=raw-query-value', { host: 'status-test.localhost' });
  await f.s.request('/no-such-zone-path-x1', { host: 'status-test.localhost' });
  await f.s.request('/api/sessions/raw-id-value-x2');
  const text = (await f.s.request('/metrics')).text;
  assert.match(text, /^process_cpu_user_seconds_total /m);
  assert.match(text, /^nodejs_eventloop_lag_seconds /m);
  // The delay histogram (sampled every 100 ms: metrics.ts) is exported with its percentiles.
  assert.match(text, /^nodejs_eventloop_lag_p99_seconds /m);
  assert.match(text, /http_request_duration_seconds_bucket\{[^}]*route="\/status"[^}]*status="200"/);
  assert.match(text, /http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\}/);
  for (const raw of ['raw-query-value', 'no-such-zone-path-x1', 'raw-id-value-x2', 'status-test.localhost']) {
    assert.ok(!text.includes(raw), `${raw} must not appear in /metrics`);
  }
});

test('durations of the zone handler and of Fastify routes form one family; a shared label set is one series', async () => {
  const countOf = (text: string) =>
    text.split('\n').filter((l) => l.startsWith('http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}'));
  const before = countOf((await f.s.request('/metrics')).text);
  const base = before.length === 1 ? Number(before[0]!.split(' ').pop()) : 0;
  for (let i = 0; i < 2; i++) await f.s.request('/healthz');
  for (let i = 0; i < 3; i++) await f.s.request('/healthz', { host: 'status-test.localhost' });
  const text = (await f.s.request('/metrics')).text;
  assert.equal(text.split('\n').filter((l) => l === '# TYPE http_request_duration_seconds histogram').length, 1);
  const lines = countOf(text);
  assert.equal(lines.length, 1, 'one series for GET /healthz 200 across both hosts');
  assert.equal(Number(lines[0]!.split(' ').pop()), base + 5);
  const inf = text
    .split('\n')
    .filter((l) => l.startsWith('http_request_duration_seconds_bucket{'))
    .filter((l) => ['le="+Inf"', 'route="/healthz"', 'method="GET"', 'status="200"'].every((p) => l.includes(p)));
  assert.equal(inf.length, 1);
  assert.equal(Number(inf[0]!.split(' ').pop()), base + 5, 'the +Inf bucket equals the count');
});

test('with METRICS_TOKEN set, /metrics needs that bearer', async () => {
  const s = await startTestServer({ env: { METRICS_TOKEN: 'metrics-secret-1', API_HEALTH_URL: f.api.url } });
  try {
    assertProblem(await s.request('/metrics'), 401, 'UNAUTHENTICATED');
    assertProblem(await s.request('/metrics', { bearer: 'wrong' }), 401, 'UNAUTHENTICATED');
    const ok = await s.request('/metrics', { bearer: 'metrics-secret-1' });
    assert.equal(ok.status, 200);
    assert.match(ok.text, /service_edge_status_check_total/);
  } finally {
    await s.close();
  }
});
