// getMany (MGET) on both stores: values in the order asked, null for a missing or expired key.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Cache } from '../../../src/infra/cache/cache.js';
import { hashTag } from '../../../src/infra/cache/keys.js';
import { onBothStores } from '../../support/cache-stores.js';

async function checkGetMany(cache: Cache): Promise<void> {
  const tag = hashTag(randomBytes(6).toString('hex'));
  const [a, b, gone, short] = ['a', 'b', 'gone', 'short'].map((k) => `test:many:${tag}:${k}`) as [string, string, string, string];
  assert.deepEqual(await cache.getMany([]), []);
  await cache.set(a, 'first', 60_000);
  await cache.set(b, 'second', 60_000);
  await cache.set(short, 'brief', 30);
  assert.deepEqual(await cache.getMany([b, gone, a]), ['second', null, 'first']);
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.deepEqual(await cache.getMany([short, a]), [null, 'first'], 'an expired key reads as null');
  await cache.del(a, b);
  assert.deepEqual(await cache.getMany([a, b]), [null, null]);
}

onBothStores('getMany', checkGetMany);
