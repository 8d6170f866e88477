// The HTTP duration histogram (metrics.ts): bound series observed without hashing labels, and
// exported through prom-client's registry exactly as a prom-client histogram would be.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { createMetrics } from '../../../src/infra/observability/metrics.js';

const DURATION_LINES = (text: string) => text.split('\n').filter((l) => l.startsWith('http_request_duration_seconds'));

test('the exposition equals a prom-client histogram fed the same observations', async () => {
  const { registry, httpDuration } = createMetrics();
  const reference = new Registry();
  const expected = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route pattern',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [reference],
  });
  // On a bound, between bounds, above every bound, zero; two series, one of them fed both ways.
  const card = httpDuration.labels('GET', '/.well-known/mcp/server-card.json', '200');
  const observations: [string, string, string, number][] = [
    ['GET', '/.well-known/mcp/server-card.json', '200', 0.001],
    ['GET', '/.well-known/mcp/server-card.json', '200', 0.0007],
    ['GET', '/.well-known/mcp/server-card.json', '200', 0.3],
    ['GET', '/.well-known/mcp/server-card.json', '200', 7],
    ['POST', '/graphql', '400', 0],
    ['POST', '/graphql', '400', 0.026],
  ];
  observations.forEach(([method, route, status, seconds], i) => {
    if (route === '/graphql' || i % 2 === 0) httpDuration.observe({ method, route, status }, seconds);
    else card.observe(seconds);
    expected.observe({ method, route, status }, seconds);
  });
  const ours = DURATION_LINES(await registry.metrics());
  const theirs = DURATION_LINES(await reference.metrics());
  assert.equal(ours.length, 2 * (12 + 3));
  const sortedLabels = (line: string) => {
    const [, name, labels, value] = /^([^{]+)\{([^}]*)\} (.+)$/.exec(line)!;
    return `${name}{${labels!.split(',').sort().join(',')}} ${value}`;
  };
  assert.deepEqual(ours.map(sortedLabels).sort(), theirs.map(sortedLabels).sort());
  assert.ok(ours.includes('http_request_duration_seconds_count{method="GET",route="/.well-known/mcp/server-card.json",status="200"} 4'));
  assert.ok(ours.some((l) => l.includes('le="0.001"') && l.includes('route="/.well-known/mcp/server-card.json"') && l.endsWith(' 2')));
  assert.ok(ours.some((l) => l.includes('le="5"') && l.includes('route="/.well-known/mcp/server-card.json"') && l.endsWith(' 3')));
  assert.ok(ours.some((l) => l.includes('le="+Inf"') && l.includes('route="/.well-known/mcp/server-card.json"') && l.endsWith(' 4')));

  await registry.resetMetrics();
  assert.deepEqual(DURATION_LINES(await registry.metrics()), []);
  // A series bound before the reset goes on counting, as a prom-client child does.
  card.observe(0.002);
  assert.ok(DURATION_LINES(await registry.metrics()).includes('http_request_duration_seconds_count{method="GET",route="/.well-known/mcp/server-card.json",status="200"} 1'));
});

test('a duration that is not a finite number is not counted', async () => {
  const { httpDuration } = createMetrics();
  const series = httpDuration.labels('GET', '/status', '200');
  series.observe(Number.NaN);
  series.observe(Number.POSITIVE_INFINITY);
  series.observe(0.003);
  const { values } = await httpDuration.get();
  assert.deepEqual(
    values.filter((v) => v.metricName !== 'http_request_duration_seconds_bucket').map((v) => v.value),
    [0.003, 1],
  );
});

test('the same label set is one series however it is reached', async () => {
  const { httpDuration } = createMetrics();
  const bound = httpDuration.labels('GET', '/status', '200');
  assert.equal(httpDuration.labels('GET', '/status', '200'), bound);
  bound.observe(0.002);
  httpDuration.observe({ method: 'GET', route: '/status', status: '200' }, 0.002);
  const { values } = await httpDuration.get();
  const counts = values.filter((v) => v.metricName === 'http_request_duration_seconds_count');
  assert.deepEqual(counts, [{ metricName: 'http_request_duration_seconds_count', labels: { method: 'GET', route: '/status', status: '200' }, value: 2 }]);
});
