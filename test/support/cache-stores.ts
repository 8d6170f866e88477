// A cache contract check run on both stores: the in-process memory store always, the Redis store
// when REDIS_URL is set (reported as skipped otherwise).
import { test } from 'node:test';
import type { Cache } from '../../src/infra/cache/cache.js';
import { MemoryCache } from '../../src/infra/cache/memory.js';
import { RedisCache } from '../../src/infra/cache/redis.js';
import { needs } from './backends.js';

export function onBothStores(what: string, check: (cache: Cache) => Promise<void>): void {
  test(`memory store: ${what}`, async () => {
    await check(new MemoryCache());
  });
  test(`Redis store: ${what}`, needs(['REDIS_URL'], 'a real Redis'), async () => {
    const cache = await RedisCache.connect({ mode: 'single', url: process.env.REDIS_URL! });
    try {
      await check(cache);
    } finally {
      await cache.close();
    }
  });
}
