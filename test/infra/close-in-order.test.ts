// Shutdown's steps run in order, each even after one before it failed; every failure is reported
// and the result says whether all succeeded.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closeInOrder } from '../../src/infra/close-in-order.js';

test('every step runs, in order, after a failure too; the failures are reported and the result is false', async () => {
  const ran: string[] = [];
  const failed: [string, string][] = [];
  const ok = await closeInOrder(
    [
      ['http', () => void ran.push('http')],
      ['cache', async () => {
        ran.push('cache');
        throw new Error('cache gone');
      }],
      ['sync throw', () => {
        ran.push('sync throw');
        throw new Error('at once');
      }],
      ['database', async () => void ran.push('database')],
    ],
    (step, err) => failed.push([step, (err as Error).message]),
  );
  assert.equal(ok, false);
  assert.deepEqual(ran, ['http', 'cache', 'sync throw', 'database']);
  assert.deepEqual(failed, [['cache', 'cache gone'], ['sync throw', 'at once']]);
});

test('all steps succeeding: true, nothing reported', async () => {
  const ok = await closeInOrder([['a', async () => {}], ['b', () => undefined]], () => assert.fail('nothing fails'));
  assert.equal(ok, true);
});
