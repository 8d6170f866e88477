// An unreachable Redis stops start-up with an error instead of hanging, whatever the topology:
// a Sentinel client would otherwise keep asking its sentinels forever.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RedisCache, type RedisTarget } from '../../../src/infra/cache/redis.js';
import { freePort } from '../../support/programs.js';

test('connect() rejects for an unreachable node, cluster or sentinel, within its deadline', { timeout: 10_000 }, async () => {
  const port = await freePort(); // nothing listens there
  const targets: RedisTarget[] = [
    { mode: 'single', url: `redis://127.0.0.1:${port}` },
    { mode: 'cluster', urls: [`redis://127.0.0.1:${port}`] },
    { mode: 'sentinel', urls: [`redis://127.0.0.1:${port}`], name: 'mymaster' },
  ];
  for (const target of targets) {
    const started = Date.now();
    await assert.rejects(RedisCache.connect(target, { connectDeadlineMs: 1500 }), Error, target.mode);
    assert.ok(Date.now() - started < 3000, `${target.mode} gave up in ${Date.now() - started} ms`);
  }
});
