// The refresh runs inside a span named edge.status_check (SPEC 6), captured here in memory.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { useStatusFixture } from '../../support/status.js';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();

const f = useStatusFixture();
after(() => provider.shutdown());

test('a refresh records one edge.status_check span with the outcome; cached answers record none', async () => {
  await f.reset();
  await f.broker.set(503);
  exporter.reset();
  assert.equal((await f.status()).status, 503);
  await f.status();
  await f.status();
  const spans = exporter.getFinishedSpans().filter((s) => s.name === 'edge.status_check');
  assert.equal(spans.length, 1);
  const span = spans[0]!;
  assert.equal(span.attributes['status.overall'], 'degraded');
  assert.equal(span.attributes['status.broker.ok'], false);
  assert.equal(span.attributes['status.broker.detail'], 'status 503');
  assert.equal(span.attributes['status.api.ok'], true);
  assert.equal(span.attributes['status.edge.ok'], true);
});
