// After-reply work: failures are logged (never thrown at nobody), and shutdown waits for what is
// still running before the database closes under it: a forgot-password sent just before a
// SIGTERM still issues its link.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { BackgroundWork } from '../../src/infra/background.js';
import { signup } from '../support/accounts.js';
import { startTestServer } from '../support/server.js';

function capture(): { logger: pino.Logger; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
}

test('a failing task is logged with its name; drain waits for running tasks and what they start', async () => {
  const { logger, lines } = capture();
  const work = new BackgroundWork(logger);
  const done: string[] = [];
  work.run('fails', async () => {
    throw new Error('boom');
  });
  work.run('slow', async () => {
    await new Promise((r) => setTimeout(r, 150));
    done.push('slow');
    work.run('chained', async () => {
      await new Promise((r) => setTimeout(r, 100));
      done.push('chained');
    });
  });
  assert.equal(work.pending, 2);
  await work.drain();
  assert.deepEqual(done, ['slow', 'chained']);
  assert.equal(work.pending, 0);
  const failure = lines().find((l) => l.what === 'fails');
  assert.equal(failure?.err, 'boom');
  assert.equal(failure?.msg, 'background work failed');
});

test('work starts on the next turn of the event loop, after what the caller finishes in this one (its reply)', async () => {
  const work = new BackgroundWork(pino({ level: 'silent' }));
  const order: string[] = [];
  work.run('after the reply', async () => {
    order.push('work');
  });
  assert.equal(work.pending, 1, 'counted at once, for drain');
  // The caller's own promise chain in this turn: a reply serialized and written.
  await Promise.resolve();
  order.push('caller');
  for (let i = 0; i < 20; i++) await Promise.resolve();
  order.push('caller, later in the same turn');
  await work.drain();
  assert.deepEqual(order, ['caller', 'caller, later in the same turn', 'work']);
});

test('drain gives up at its bound and says how much was left', async () => {
  const { logger, lines } = capture();
  const work = new BackgroundWork(logger);
  work.run('stuck', () => new Promise(() => {}));
  const started = Date.now();
  await work.drain(200);
  assert.ok(Date.now() - started < 1000);
  assert.equal(lines().find((l) => l.msg === 'background work still running at shutdown')?.pending, 1);
});

test('closing the server waits for a forgot-password still at work: the reset link is issued', async () => {
  const server = await startTestServer();
  let closed = false;
  try {
    const a = await signup(server);
    const db = server.deps.db;
    let row: { kind: string } | null = null;
    // The reply comes first; the work after it must still commit before the database closes.
    server.deps.background.run('probe', async () => {
      await new Promise((r) => setTimeout(r, 300));
      row = await db.emailToken.findFirst({ where: { accountId: a.id, kind: 'reset-password' }, select: { kind: true } });
    });
    const r = await server.request('/auth/forgot-password', { method: 'POST', body: { email: a.email } });
    assert.equal(r.status, 204);
    await server.close();
    closed = true;
    assert.deepEqual(row, { kind: 'reset-password' }, 'the link was issued before shutdown finished');
  } finally {
    if (!closed) await server.close();
  }
});
