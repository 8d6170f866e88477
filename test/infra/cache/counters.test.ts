// The fixed-window counters behind every limit, on both stores: hit counts and opens a window,
// hitMany counts several in one call, settleCounters refunds some (only while their window is
// open, never below zero, never opening one) and deletes others, peek reads.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { Cache } from '../../../src/infra/cache/cache.js';
import { keySlot } from '../../../src/infra/cache/keys.js';
import { RedisCache } from '../../../src/infra/cache/redis.js';
import { onBothStores } from '../../support/cache-stores.js';
import { needsPrograms } from '../../support/programs.js';
import { REDIS_PROGRAMS, startRedisCluster } from '../../support/redis-cluster.js';

const unhit = (cache: Cache, key: string) => cache.settleCounters([key], []);

async function checkCounters(cache: Cache): Promise<void> {
  const key = `test:counter:${randomBytes(6).toString('hex')}`;
  assert.equal(await cache.peek(key), null);
  // A refund for a counter that does not exist opens nothing.
  await unhit(cache, key);
  assert.equal(await cache.peek(key), null);
  assert.equal((await cache.hit(key, 60_000)).count, 1);
  assert.equal((await cache.hit(key, 60_000)).count, 2);
  await unhit(cache, key);
  const after = await cache.peek(key);
  assert.equal(after?.count, 1);
  assert.ok(after && after.resetMs > 50_000 && after.resetMs <= 60_000, 'the window is kept');
  await unhit(cache, key);
  await unhit(cache, key);
  assert.equal((await cache.peek(key))?.count, 0, 'never below zero');
  assert.equal((await cache.hit(key, 60_000)).count, 1);
  // A refund after the window has closed does not reopen it.
  const short = `${key}:short`;
  await cache.hit(short, 30);
  await new Promise((resolve) => setTimeout(resolve, 60));
  await unhit(cache, short);
  assert.equal(await cache.peek(short), null);
  await cache.del(key, short);
}

async function checkMany(cache: Cache): Promise<void> {
  const base = `test:counters:${randomBytes(6).toString('hex')}`;
  const [a, b, c] = [`${base}:a`, `${base}:b`, `${base}:c`];
  await cache.hit(b, 60_000);
  await cache.hit(b, 60_000);
  const first = await cache.hitMany([
    { key: a, windowMs: 60_000 },
    { key: b, windowMs: 60_000 },
    { key: c, windowMs: 20_000 },
  ]);
  assert.deepEqual(
    first.map((s) => s.count),
    [1, 3, 1],
    'each counter counted once, in the order given',
  );
  assert.ok(first[2]!.resetMs > 10_000 && first[2]!.resetMs <= 20_000, "each key opens its own window");
  assert.ok(first[0]!.resetMs > 50_000 && first[0]!.resetMs <= 60_000);
  assert.deepEqual([], await cache.hitMany([]));
  // Refund a and b, clear c: b keeps its window and loses one; a stays at zero; c is gone.
  await cache.settleCounters([a, b], [c]);
  assert.equal((await cache.peek(a))?.count, 0);
  const bAfter = await cache.peek(b);
  assert.equal(bAfter?.count, 2);
  assert.ok(bAfter && bAfter.resetMs > 50_000, 'the window is kept');
  assert.equal(await cache.peek(c), null);
  // A refund of a counter that does not exist opens nothing, next to one that does.
  const absent = `${base}:absent`;
  await cache.settleCounters([absent, b], []);
  assert.equal(await cache.peek(absent), null);
  assert.equal((await cache.peek(b))?.count, 1);
  await cache.settleCounters([], []);
  await cache.del(a, b, c);
}

onBothStores('hit, refund and peek', checkCounters);
onBothStores('hitMany and settleCounters', checkMany);

// On a cluster the keys of one call may fall in several slots (a sign-in's per-network and
// per-account counters do): each slot gets its own script, and the answers keep the call's order.
test('Redis Cluster: hitMany and settleCounters over keys in different slots', needsPrograms(REDIS_PROGRAMS, 'a local Redis Cluster'), async () => {
  const cluster = await startRedisCluster({ masters: 3, replicas: 0 });
  try {
    const cache = await RedisCache.connect({ mode: 'cluster', urls: cluster.urls });
    try {
      await checkMany(cache);
      const base = `test:slots:${randomBytes(6).toString('hex')}`;
      const keys = Array.from({ length: 6 }, (_, i) => `${base}:${i}`);
      assert.ok(new Set(keys.map(keySlot)).size > 1, 'the keys span slots');
      await cache.hit(keys[3]!, 60_000);
      const counts = await cache.hitMany(keys.map((key) => ({ key, windowMs: 60_000 })));
      assert.deepEqual(counts.map((c) => c.count), [1, 1, 1, 2, 1, 1]);
      await cache.settleCounters(keys.slice(0, 4), keys.slice(4));
      const after = await Promise.all(keys.map((k) => cache.peek(k)));
      assert.deepEqual(after.map((p) => p?.count ?? null), [0, 0, 0, 1, null, null]);
    } finally {
      await cache.close();
    }
  } finally {
    await cluster.close();
  }
});
