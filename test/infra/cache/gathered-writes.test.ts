// Cache.gatherWrites on the Redis store: the commands a request sends back to back after it (a cold
// account view: the view's copy and the session's entry) leave in one write to the socket, and
// their answers are those of separate writes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { test } from 'node:test';
import type { Cache } from '../../../src/infra/cache/cache.js';
import { hashTag } from '../../../src/infra/cache/keys.js';
import { RedisCache } from '../../../src/infra/cache/redis.js';
import { MemoryCache } from '../../../src/infra/cache/memory.js';
import { needs } from '../../support/backends.js';

type WriteFn = (this: Socket, ...args: unknown[]) => unknown;

/** Counts the writes handed to the sockets connected to `port` while `run` runs. */
async function writesTo(port: number, run: () => Promise<void>): Promise<number> {
  const proto = Socket.prototype as unknown as { _write: WriteFn; _writev: WriteFn };
  const original = { _write: proto._write, _writev: proto._writev };
  let writes = 0;
  for (const name of ['_write', '_writev'] as const) {
    proto[name] = function (this: Socket, ...args: unknown[]) {
      if (this.remotePort === port) writes++;
      return original[name].apply(this, args);
    };
  }
  try {
    await run();
  } finally {
    Object.assign(proto, original);
  }
  return writes;
}

/** What account-view.ts does on a cold read: the view's versioned copy, then, a few awaits later, the session's entry. */
async function coldPair(cache: Cache, tag: string, gather: boolean): Promise<{ stored: boolean; set: boolean }> {
  if (gather) cache.gatherWrites();
  const stored = cache.storeVersioned(`test:gw:${tag}:v`, `test:gw:${tag}:`, 3, 'view', 60_000, 60_000);
  await Promise.resolve();
  await null;
  const set = cache.setIfAbsent(`test:gw:session:${tag}`, 'session', 60_000);
  return { stored: await stored, set: await set };
}

test('two commands sent in one tick after gatherWrites leave in one write, with the same answers', needs(['REDIS_URL'], 'a real Redis'), async () => {
  const url = new URL(process.env.REDIS_URL!);
  const port = Number(url.port || 6379);
  const cache = await RedisCache.connect({ mode: 'single', url: process.env.REDIS_URL! });
  try {
    // The script loaded first (its first EVALSHA may be refused and sent again as EVAL).
    await coldPair(cache, hashTag(randomBytes(6).toString('hex')), false);
    for (let round = 0; round < 5; round++) {
      const separate = hashTag(randomBytes(6).toString('hex'));
      let answers = { stored: false, set: false };
      assert.equal(await writesTo(port, async () => void (answers = await coldPair(cache, separate, false))), 2, 'without gathering, one write per command');
      assert.deepEqual(answers, { stored: true, set: true });

      const gathered = hashTag(randomBytes(6).toString('hex'));
      assert.equal(await writesTo(port, async () => void (answers = await coldPair(cache, gathered, true))), 1, 'gathered: one write for both');
      assert.deepEqual(answers, { stored: true, set: true });
      assert.deepEqual(await cache.getVersioned(`test:gw:${gathered}:v`, `test:gw:${gathered}:`), { version: '3', value: 'view' });
      assert.equal(await cache.get(`test:gw:session:${gathered}`), 'session');
    }
    // The hold ends with the tick: a command sent later leaves at once, on its own.
    cache.gatherWrites();
    await new Promise((resolve) => setImmediate(resolve));
    const later = hashTag(randomBytes(6).toString('hex'));
    assert.equal(await writesTo(port, async () => void (await cache.set(`test:gw:later:${later}`, 'x', 60_000))), 1);
    assert.equal(await cache.get(`test:gw:later:${later}`), 'x');
  } finally {
    await cache.close();
  }
});

test('gatherWrites on the memory store changes nothing', async () => {
  const cache = new MemoryCache();
  const tag = hashTag(randomBytes(6).toString('hex'));
  assert.deepEqual(await coldPair(cache, tag, true), { stored: true, set: true });
  assert.deepEqual(await cache.getVersioned(`test:gw:${tag}:v`, `test:gw:${tag}:`), { version: '3', value: 'view' });
});
