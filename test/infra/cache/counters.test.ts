// The fixed-window counters behind every limit, on both stores: hit counts and opens a window,
// unhit refunds one while the window is open (never below zero, never opening one), peek reads.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Cache } from '../../../src/infra/cache/cache.js';
import { onBothStores } from '../../support/cache-stores.js';

async function checkCounters(cache: Cache): Promise<void> {
  const key = `test:counter:${randomBytes(6).toString('hex')}`;
  assert.equal(await cache.peek(key), null);
  // A refund for a counter that does not exist opens nothing.
  await cache.unhit(key);
  assert.equal(await cache.peek(key), null);
  assert.equal((await cache.hit(key, 60_000)).count, 1);
  assert.equal((await cache.hit(key, 60_000)).count, 2);
  await cache.unhit(key);
  const after = await cache.peek(key);
  assert.equal(after?.count, 1);
  assert.ok(after && after.resetMs > 50_000 && after.resetMs <= 60_000, 'the window is kept');
  await cache.unhit(key);
  await cache.unhit(key);
  assert.equal((await cache.peek(key))?.count, 0, 'never below zero');
  assert.equal((await cache.hit(key, 60_000)).count, 1);
  // A refund after the window has closed does not reopen it.
  const short = `${key}:short`;
  await cache.hit(short, 30);
  await new Promise((resolve) => setTimeout(resolve, 60));
  await cache.unhit(short);
  assert.equal(await cache.peek(short), null);
  await cache.del(key, short);
}

onBothStores('hit, unhit and peek', checkCounters);
