// The benchmarks run on real PostgreSQL and Redis when they answer on loopback (a fresh database
// per run, dropped afterwards); BENCH_DATABASE_URL / BENCH_REDIS_URL override, BENCH_EMBEDDED=1
// forces the embedded defaults.
import { Redis } from 'ioredis';
import pg from 'pg';

const ADMIN_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

/**
 * Empties the benchmark's Redis database (when one is used): each suite starts from a clean cache,
 * so one suite's counters (the accounts suite signs up 80 accounts from loopback, past the
 * per-network sign-up limit) never refuse the next suite's requests.
 */
export async function freshCache(): Promise<void> {
  if (!process.env.BENCH_REDIS_URL) return;
  const redis = new Redis(process.env.BENCH_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.flushdb();
  } finally {
    redis.disconnect();
  }
}

export async function prepareBackends(): Promise<() => Promise<void>> {
  if (process.env.BENCH_EMBEDDED === '1' || process.env.BENCH_DATABASE_URL) return async () => {};
  const name = `bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  } catch {
    await admin.end().catch(() => {});
    process.stderr.write('PostgreSQL not reachable on 127.0.0.1:5432: benchmarking the embedded defaults\n');
    return async () => {};
  }
  process.env.BENCH_DATABASE_URL = `postgresql://postgres@127.0.0.1:5432/${name}`;
  const redis = new Redis('redis://127.0.0.1:6379/9', { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.flushdb();
    process.env.BENCH_REDIS_URL = 'redis://127.0.0.1:6379/9';
  } catch {
    process.stderr.write('Redis not reachable on 127.0.0.1:6379: benchmarking the memory cache\n');
  } finally {
    redis.disconnect();
  }
  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  };
}
