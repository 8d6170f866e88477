// With OTEL_EXPORTER_OTLP_ENDPOINT set, spans leave the process over OTLP/HTTP to <endpoint>/v1/traces.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { startTracing, type Tracing } from '../../../src/infra/observability/tracing.js';
import { useFixture } from '../../support/fixture.js';
import { useStatusFixture } from '../../support/status.js';

const received: { path: string; body: Buffer }[] = [];
const collector = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ path: req.url ?? '', body: Buffer.concat(chunks) });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

const endpoint = useFixture(
  async () => {
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(collector.address() as AddressInfo).port}/`;
  },
  async () => void collector.close(),
);
const f = useStatusFixture(() => ({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint() } }));
const tracing = useFixture<Tracing | null>(
  () => startTracing(f.s.deps.config),
  async (t) => t?.shutdown(),
);

test('the edge.status_check span is exported to the OTLP collector', async () => {
  const exporter = tracing();
  assert.ok(exporter, 'tracing starts when the endpoint is configured');
  await f.reset();
  await f.status();
  await exporter.flush();
  const traces = received.filter((r) => r.path === '/v1/traces');
  assert.ok(traces.length >= 1, 'the collector received an export');
  assert.ok(
    traces.some((t) => t.body.includes(Buffer.from('edge.status_check'))),
    'the export carries the span name',
  );
});

test('without an endpoint no tracer provider is installed', async () => {
  assert.equal(await startTracing({ otlpEndpoint: null, serviceName: 'x' }), null);
});
