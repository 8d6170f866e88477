// Two server instances, A and B, on the shared PostgreSQL and on a Redis they both reach through
// one TCP proxy, so a test can take Redis away from both and give it back (the revocation tests:
// a revocation is never undone by a cache). Only with DATABASE_URL and REDIS_URL: `shared` skips
// the tests otherwise.
import assert from 'node:assert/strict';
import { needs } from './backends.js';
import { useFixture } from './fixture.js';
import { startTestServer, type TestServer } from './server.js';
import { TcpProxy } from './tcp-proxy.js';

export const shared = needs(['DATABASE_URL', 'REDIS_URL'], 'two instances sharing PostgreSQL and a Redis that goes down');

/** The proxy and the two instances, started before the file's tests (with `env` for both). */
export function useInstancesBehindRedisProxy(env: Record<string, string> = {}) {
  const proxy = useFixture(
    () => {
      const redis = new URL(process.env.REDIS_URL!);
      return TcpProxy.start(redis.hostname, Number(redis.port || 6379));
    },
    (p) => p.cut(),
    shared,
  );
  const behindProxy = () => startTestServer({ env: { ...env, REDIS_URL: TcpProxy.rewrite(process.env.REDIS_URL!, proxy().port) } });
  const stop = (server: TestServer) => server.close();
  const a = useFixture(behindProxy, stop, shared);
  const b = useFixture(behindProxy, stop, shared);

  /** Both instances' Redis clients are connected again. */
  async function redisBack(): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (const server of [a(), b()]) {
      while ((await server.deps.cache.ping().then(() => true, () => false)) === false) {
        assert.ok(Date.now() < deadline, 'redis did not come back');
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }
  return { proxy, a, b, redisBack };
}
