// The scale-out variables: one Redis topology at a time, each with one clear line on a bad value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/infra/config.js';

const bad = (env: Record<string, string>, line: RegExp) => assert.throws(() => loadConfig(env), (e: unknown) => e instanceof ConfigError && line.test(e.message));

test('REDIS_CLUSTER_URLS: a list of seed nodes; a revocation waits for one replica by default', () => {
  const c = loadConfig({ REDIS_CLUSTER_URLS: 'redis://10.0.0.1:7000, redis://10.0.0.2:7000' });
  assert.deepEqual(c.redis, { mode: 'cluster', urls: ['redis://10.0.0.1:7000', 'redis://10.0.0.2:7000'] });
  assert.equal(c.redisWaitReplicas, 1);
  assert.equal(loadConfig({ REDIS_CLUSTER_URLS: 'redis://a:1', REDIS_WAIT_REPLICAS: '0' }).redisWaitReplicas, 0);
  bad({ REDIS_CLUSTER_URLS: 'http://a:1' }, /^REDIS_CLUSTER_URLS must be a comma-separated list of redis:\/\/ URLs$/);
  bad({ REDIS_CLUSTER_URLS: ' , ' }, /^REDIS_CLUSTER_URLS /);
});

test('REDIS_SENTINEL_URLS needs REDIS_SENTINEL_NAME, and only one topology is set', () => {
  const c = loadConfig({ REDIS_SENTINEL_URLS: 'redis://s1:26379,redis://s2:26379', REDIS_SENTINEL_NAME: 'mymaster' });
  assert.deepEqual(c.redis, { mode: 'sentinel', urls: ['redis://s1:26379', 'redis://s2:26379'], name: 'mymaster' });
  bad({ REDIS_SENTINEL_URLS: 'redis://s1:26379' }, /REDIS_SENTINEL_URLS and REDIS_SENTINEL_NAME must be set together/);
  bad({ REDIS_SENTINEL_NAME: 'mymaster' }, /must be set together/);
  bad({ REDIS_SENTINEL_URLS: 'redis://s1:26379', REDIS_SENTINEL_NAME: 'my master' }, /^REDIS_SENTINEL_NAME must be/);
  bad({ REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_URLS: 'redis://a:1' }, /set only one of them/);
  bad({ REDIS_WAIT_REPLICAS: 'two' }, /^REDIS_WAIT_REPLICAS must be a number/);
  const single = loadConfig({ REDIS_URL: 'redis://r:6379/3' });
  assert.deepEqual(single.redis, { mode: 'single', url: 'redis://r:6379/3' });
  assert.equal(single.redisWaitReplicas, 0);
  assert.equal(loadConfig({}).redis, null);
});

test('DATABASE_DIRECT_URL: a postgres URL beside the pooled DATABASE_URL', () => {
  const c = loadConfig({ DATABASE_URL: 'postgresql://app@pgbouncer:6432/app', DATABASE_DIRECT_URL: 'postgresql://app@db:5432/app' });
  assert.equal(c.databaseDirectUrl, 'postgresql://app@db:5432/app');
  bad({ DATABASE_URL: 'postgresql://a@b/c', DATABASE_DIRECT_URL: 'mysql://x' }, /^DATABASE_DIRECT_URL is not a valid postgres\/postgresql URL$/);
  bad({ DATABASE_DIRECT_URL: 'postgresql://a@b/c' }, /^DATABASE_DIRECT_URL needs DATABASE_URL/);
});
