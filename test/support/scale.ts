// The scaled-out deployment as tests start it: a fresh database on the PostgreSQL of
// DATABASE_URL behind PgBouncer (transaction pooling), a Redis Cluster (3 masters, 3 replicas),
// N server instances on them, and HAProxy round robin in front. `lb` is a Server whose requests
// go through the load balancer (its deps are instance 1's, for reading state).
import pg from 'pg';
import { startHaProxy, type HaProxy } from './haproxy.js';
import { request } from './http.js';
import { startPgBouncer, type PgBouncer } from './pgbouncer.js';
import { REDIS_PROGRAMS, startRedisCluster, type RedisCluster } from './redis-cluster.js';
import { startTestServer, type Server, type TestServer } from './server.js';
import { TestSmtp } from './smtp.js';

export const SCALE_PROGRAMS = [...REDIS_PROGRAMS, 'pgbouncer', 'haproxy'];

export interface FreshDatabase {
  /** Direct URL (DATABASE_DIRECT_URL). */
  url: string;
  drop(): Promise<void>;
}

/** A new, empty database on the server of `base` (a postgresql:// URL), dropped by drop(). */
export async function freshDatabase(base: string, prefix: string): Promise<FreshDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${process.pid}`;
  const admin = new URL(base);
  admin.pathname = '/postgres';
  const run = async (sql: string) => {
    const c = new pg.Client({ connectionString: admin.toString() });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export interface ScaledOut {
  cluster: RedisCluster;
  pgbouncer: PgBouncer;
  db: FreshDatabase;
  instances: TestServer[];
  haproxy: HaProxy;
  /** Requests through HAProxy. */
  lb: Server;
  smtp: TestSmtp;
  close(): Promise<void>;
}

export async function startScaledOut(opts: { instances: number; env?: Record<string, string>; databaseUrl: string }): Promise<ScaledOut> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers.splice(0).reverse()) await c().catch(() => {});
  };
  try {
    const smtp = await TestSmtp.start();
    closers.push(() => smtp.close());
    const [cluster, db] = await Promise.all([startRedisCluster(), freshDatabase(opts.databaseUrl, 't_scale')]);
    closers.push(() => cluster.close(), () => db.drop());
    const pgbouncer = await startPgBouncer(db.url);
    closers.push(() => pgbouncer.close());
    const env = {
      DATABASE_URL: pgbouncer.url,
      DATABASE_DIRECT_URL: db.url,
      REDIS_URL: undefined,
      REDIS_CLUSTER_URLS: cluster.urls.join(','),
      ...opts.env,
    };
    // One instance first (it applies the migrations), the others together.
    const instances = [await startTestServer({ smtp, env })];
    closers.push(() => instances[0]!.close());
    const rest = await Promise.all(Array.from({ length: opts.instances - 1 }, () => startTestServer({ smtp, env })));
    for (const s of rest) {
      instances.push(s);
      closers.push(() => s.close());
    }
    const haproxy = await startHaProxy(instances.map((s) => s.url));
    closers.push(() => haproxy.close());
    const first = instances[0]!;
    const lb: Server = {
      url: haproxy.url,
      deps: first.deps,
      app: first.app,
      smtp,
      clock: first.clock,
      request: (path, o) => request(haproxy.url, path, o),
    };
    // HAProxy marks the servers up after their first check.
    for (let i = 0; i < 50 && (await lb.request('/healthz').catch(() => null))?.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    return { cluster, pgbouncer, db, instances, haproxy, lb, smtp, close };
  } catch (err) {
    await close();
    throw err;
  }
}
