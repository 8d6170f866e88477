// The API host's error handler: a failure while the client is still there answers problem+json and
// is logged as an error; a failure because the client hung up (Fastify's "Premature close" when a
// connection closes before the answer is written) is not a server fault: logged at info, no answer.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import pino from 'pino';
import { registerErrorHandlers } from '../../../src/adapters/api/error-handlers.js';
import { createMetrics } from '../../../src/infra/observability/metrics.js';

const lines: Array<{ level: number; msg: string; err?: string }> = [];
let app: FastifyInstance;
let port = 0;

before(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
  });
  // pino's Logger and Fastify's logger type differ only in optional members (as in src/app.ts).
  app = Fastify({ loggerInstance: pino({ level: 'info' }, stream) as unknown as FastifyBaseLogger, disableRequestLogging: true });
  registerErrorHandlers(app, createMetrics(), { baseUrl: 'https://api.example' });
  app.get('/hung-up', async (req) => {
    await once(req.raw.socket, 'close');
    throw new Error('Premature close');
  });
  app.get('/broken', async () => {
    throw new Error('a real fault');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});

after(() => app.close());

const settle = () => new Promise((r) => setTimeout(r, 100));

test('a client that hangs up before its answer is logged at info, not as an unhandled error', async () => {
  lines.length = 0;
  const socket = connect(port, '127.0.0.1', () => socket.write('GET /hung-up HTTP/1.1\r\nHost: api.localhost\r\n\r\n'));
  await settle();
  socket.destroy();
  await settle();
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg, l.err]),
    [[30, 'client closed the connection before the answer', 'Premature close']],
  );
  // The server goes on answering.
  const res = await fetch(`http://127.0.0.1:${port}/nowhere`);
  assert.equal(res.status, 404);
});

test('a fault with the client still there answers 500 problem+json and is logged as an error', async () => {
  lines.length = 0;
  const res = await fetch(`http://127.0.0.1:${port}/broken`);
  assert.equal(res.status, 500);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  await settle();
  assert.deepEqual(lines.map((l) => [l.level, l.msg, l.err]), [[50, 'unhandled error', 'a real fault'], [50, 'request failed', undefined]]);
});
