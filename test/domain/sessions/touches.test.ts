// The write-behind touches of cold session checks (src/domain/sessions/touches.ts): batched, one
// statement per flush, retried after a failure without overwriting a newer touch, bounded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SessionTouches } from '../../../src/domain/sessions/touches.js';
import type { Sql } from '../../../src/domain/store.js';

interface Call {
  ids: string[];
  at: number[];
}

function fakeSql(fail: () => boolean): { sql: Sql; calls: Call[] } {
  const calls: Call[] = [];
  const sql = (async (_text: string, values: readonly unknown[]) => {
    if (fail()) throw new Error('connection refused');
    calls.push({ ids: values[0] as string[], at: (values[1] as Date[]).map((d) => d.getTime()) });
    return [];
  }) as Sql;
  return { sql, calls };
}

const quiet = { warn: () => {} };
const opts = { absoluteLifetimeMs: 1, expiryStepMs: 1, logger: quiet };

test('touches wait for one flush and go in one statement, sorted by id, the latest per session', async () => {
  const { sql, calls } = fakeSql(() => false);
  const t = new SessionTouches({ sql, ...opts, flushMs: 20 });
  t.add('b', new Date(1), new Date(10));
  t.add('a', new Date(2), new Date(10));
  t.add('b', new Date(3), new Date(10));
  assert.equal(calls.length, 0, 'nothing written at once');
  await new Promise((r) => setTimeout(r, 60));
  assert.deepEqual(calls, [{ ids: ['a', 'b'], at: [2, 3] }]);
  await t.close();
});

test('a failed flush is retried; a newer touch queued meanwhile wins', async () => {
  let failing = true;
  const warnings: unknown[] = [];
  const { sql, calls } = fakeSql(() => failing);
  const t = new SessionTouches({ sql, ...opts, logger: { warn: (o: unknown) => warnings.push(o) }, flushMs: 10_000 });
  t.add('a', new Date(1), new Date(10));
  t.add('b', new Date(1), new Date(10));
  await t.flush();
  assert.equal(warnings.length, 1, 'the failure is logged');
  assert.equal(t.size, 2, 'both wait again');
  t.add('a', new Date(5), new Date(10));
  failing = false;
  await t.flush();
  assert.deepEqual(calls, [{ ids: ['a', 'b'], at: [5, 1] }]);
  assert.equal(t.size, 0);
  await t.close();
});

test('close writes what is queued and queues no timer after it', async () => {
  const { sql, calls } = fakeSql(() => false);
  const t = new SessionTouches({ sql, ...opts, flushMs: 10_000 });
  t.add('a', new Date(1), new Date(10));
  await t.close();
  assert.equal(calls.length, 1);
  t.add('b', new Date(1), new Date(10));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(calls.length, 1, 'no timer after close');
});

test('more than a batch goes in several statements of at most 1,000 rows', async () => {
  const { sql, calls } = fakeSql(() => false);
  const t = new SessionTouches({ sql, ...opts, flushMs: 10_000 });
  for (let i = 0; i < 2500; i++) t.add(`s${String(i).padStart(5, '0')}`, new Date(i), new Date(i));
  await t.close();
  assert.deepEqual(calls.map((c) => c.ids.length), [1000, 1000, 500]);
});
