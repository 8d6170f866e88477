// `npm run bench:scale`: the cold paths and the background jobs on a large data set against a
// small one, in the same run (issue 39). Two scratch databases on the loopback PostgreSQL:
// - small: 1,000 accounts; large: SCALE_ACCOUNTS (default 1,000,000) accounts; each account with
//   5 sessions, 1 tunnel and 10 security events (so 5M sessions, 1M tunnels, 10M events), seeded
//   with set-based SQL; every session was last used 30 minutes ago (what a cache that went cold
//   meets: sessions in use), so a cold check writes its minute's touch;
// - the real server (as `npm start` runs it) on each in turn, on its own Redis database;
// - per path, the server's CPU per request (from /proc), PostgreSQL's CPU per request (every
//   `postgres` process, from /proc) and the statements per request (pg_stat_database);
// - then EXPLAIN of every periodic sweep and background job on the large set;
// - then the known-hosts filter's build, hour of upkeep and plans at each of SCALE_FILTER_TUNNELS
//   (filter-upkeep.ts), each size on a database of its own.
// Prints Markdown tables (bench/HISTORY.md keeps the runs) and drops the databases.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import argon2 from 'argon2';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import pg from 'pg';
import { cpuSeconds, cpuTimes, startServer, type Proc } from './lib.js';
import { binaries, checkHugePages, clusterPids, hugePagesMode, hugePagesSetting, startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';
import { TUNNEL_HOSTS_PAGE_SQL } from '../src/domain/cards/store.js';
import { measureUpkeep, seedTunnels, type Upkeep } from './filter-upkeep.js';
import { SWEEPS } from '../src/domain/retention/retention.js';
import { batchStatement } from '../src/domain/retention/store.js';
import { OUTBOX_CLAIM, OUTBOX_EXPIRED_SWEEP } from '../src/infra/mail/worker.js';
import { TOUCH_ROWS } from '../src/domain/sessions/store.js';
import { argon2Options } from '../src/domain/passwords/password.js';

/**
 * SCALE_POSTGRES_URL: an existing server's admin URL (its settings as they are; PostgreSQL's CPU
 * is then every `postgres` process on the machine). Unset: a cluster of the run's own
 * (private-postgres.ts) with SCALE_SHARED_BUFFERS (default 10GB) of shared buffers, so the
 * large set fits in memory as it would on a server sized for it (this VM keeps almost no file
 * page cache: with PostgreSQL's default 128MB, every read outside it goes to the disk), on huge
 * pages as such a server would run, when the machine has them free. The run never changes the
 * machine's settings: without enough free huge pages it says what is missing and how to provide
 * it, then runs without them (SCALE_HUGE_PAGES=require: stops instead; off: never uses them).
 */
const EXTERNAL = process.env.SCALE_POSTGRES_URL;
const SHARED_BUFFERS = process.env.SCALE_SHARED_BUFFERS ?? '10GB';
let cluster: PrivatePostgres | null = null;
/** The cluster's huge_pages setting and, when it runs without them, why (null: an external server). */
let hugePages: { setting: 'on' | 'off'; warning: string | null } | null = null;
let ADMIN = EXTERNAL ?? '';
let urlOf = (db: string) => new URL(db, EXTERNAL).toString();
const REDIS = 'redis://127.0.0.1:6379/10';
const ZONE = 'scale.bench.localhost';
const PASSWORD = 'scale bench password 1';
/** One key for every server of the run: the migrating start seals the OAuth signing keys under it. */
const ENCRYPTION_KEY = randomBytes(32).toString('base64');
const LARGE = Number(process.env.SCALE_ACCOUNTS ?? 1_000_000);
const SMALL = 1000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
/** SCALE_ONLY=<regular expression>: only the paths whose name matches (profiling one path). */
const ONLY = process.env.SCALE_ONLY ? new RegExp(process.env.SCALE_ONLY) : null;
/**
 * SCALE_FILTER_TUNNELS: the sizes (tunnels) at which the known-hosts filter's build, hour of upkeep
 * and plans are measured, each on a database of its own (filter-upkeep.ts); `none` skips them.
 */
const FILTER_SIZES = (process.env.SCALE_FILTER_TUNNELS ?? '100000,1000000,10000000')
  .split(',')
  .filter((v) => v !== 'none' && v !== '')
  .map(Number);
/** SCALE_SETS=small: skip the large set (a quick check of the harness or of one path); empty: no path at all. */
const SETS = (process.env.SCALE_SETS ?? 'small,large').split(',');
/**
 * SCALE_DIAG=1 (the run's own cluster only): per path, each statement's calls, execution and
 * planning time, buffers and full-page images per request (pg_stat_statements, preloaded: it adds
 * its own small cost to every statement, so the table's figures are not those of a plain run), and
 * which relations the path's full-page images were of (pg_waldump over its window).
 */
const DIAG = process.env.SCALE_DIAG === '1' && !EXTERNAL;

/** Seeded session tokens: 32 characters of a–j from the number (base32's alphabet holds them). */
const tokenOf = (n: number) => String(n).padStart(32, '0').replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)]!);
const TOKEN_SQL = (n: string) => `translate(lpad((${n})::text, 32, '0'), '0123456789', 'abcdefghij')`;

/**
 * CPU seconds of every PostgreSQL process (the server's backends and its background workers), and
 * of the background processes alone (checkpointer, background writer, WAL writer, autovacuum):
 * their work lands on whichever path runs, so the table shows it apart.
 */
function postgresCpu(): { all: number; background: number } {
  let all = 0;
  let background = 0;
  const pids = cluster ? clusterPids(cluster.pid).map(String) : readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  for (const pid of pids) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      const cpu = cpuSeconds(Number(pid));
      all += cpu;
      // A client's backend names its client's address: "… 127.0.0.1(53422) idle".
      if (!/\(\d+\)/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) background += cpu;
    } catch {
      /* gone */
    }
  }
  return { all, background };
}

async function statements(admin: pg.Client, db: string): Promise<number> {
  const { rows } = await admin.query('SELECT (xact_commit + xact_rollback)::bigint AS n FROM pg_stat_database WHERE datname = $1', [db]);
  return Number(rows[0]?.n ?? 0);
}

/** The cluster's WAL so far (pg_stat_wal): bytes and full-page images. One database runs at a time. */
async function wal(admin: pg.Client): Promise<{ bytes: number; fpi: number }> {
  const { rows } = await admin.query('SELECT wal_bytes::bigint AS bytes, wal_fpi::bigint AS fpi FROM pg_stat_wal');
  return { bytes: Number(rows[0]?.bytes ?? 0), fpi: Number(rows[0]?.fpi ?? 0) };
}

/** Blocks each table and index read from outside shared buffers so far (pg_statio_*), by name. */
async function blockReads(url: string): Promise<Map<string, number>> {
  const c = new pg.Client(url);
  await c.connect();
  try {
    const { rows } = await c.query<{ name: string; n: string }>(
      `SELECT relname AS name, coalesce(heap_blks_read, 0)::bigint AS n FROM pg_statio_user_tables
       UNION ALL SELECT indexrelname, coalesce(idx_blks_read, 0)::bigint FROM pg_statio_user_indexes`,
    );
    return new Map(rows.map((r) => [r.name, Number(r.n)]));
  } finally {
    await c.end();
  }
}

async function seed(url: string, accounts: number, hash: string): Promise<{ took: number; warmed: number; steps: string }> {
  const c = new pg.Client(url);
  await c.connect();
  const started = performance.now();
  const steps: string[] = [];
  let last = started;
  const step = (name: string) => {
    const now = performance.now();
    steps.push(`${name} ${((now - last) / 1000).toFixed(0)} s`);
    last = now;
  };
  await c.query('SET synchronous_commit = off');
  // The rows are consistent by construction: no foreign-key check per row (16M of them at a
  // million accounts); the VACUUM's index passes get room.
  await c.query('SET session_replication_role = replica');
  await c.query(`SET maintenance_work_mem = '1GB'`);
  await c.query(
    `INSERT INTO accounts (id, email, email_normalized, password_hash, email_verified, slug, created_at, updated_at, tunnel_count)
     SELECT md5('a' || g)::uuid::text, 'user' || g || '@example.com', 'user' || g || '@example.com', $1, true, 'user' || g, now(), now(), 1
     FROM generate_series(1, $2) g`,
    [hash, accounts],
  );
  step('accounts');
  await c.query(
    `INSERT INTO sessions (id, account_id, token_hash, user_agent, ip, created_at, last_seen_at, authenticated_at, expires_at)
     SELECT md5('s' || g)::uuid::text, md5('a' || ((g - 1) / 5 + 1))::uuid::text, encode(sha256(convert_to(${TOKEN_SQL('g')}, 'UTF8')), 'hex'),
       'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0', '203.0.113.x', now() - interval '1 day', now() - interval '30 minutes', now() - interval '1 day',
       now() - interval '30 minutes' + interval '30 days'
     FROM generate_series(1, $1::int * 5) g`,
    [accounts],
  );
  step('sessions');
  await c.query(
    `INSERT INTO tunnels (id, account_id, subdomain, discoverable, created_at, updated_at)
     SELECT md5('t' || g)::uuid::text, md5('a' || g)::uuid::text, 'app', g % 2 = 0, now(), now() FROM generate_series(1, $1) g`,
    [accounts],
  );
  step('tunnels');
  await c.query(
    `INSERT INTO security_events (account_id, type, at, ip, user_agent, detail)
     SELECT md5('a' || ((g - 1) / 10 + 1))::uuid::text, 'sign_in', now() - (g % 1000) * interval '1 hour', '203.0.113.x', 'Mozilla/5.0', '{"method":"password","second_step":false}'
     FROM generate_series(1, $1::int * 10) g`,
    [accounts],
  );
  step('security events');
  await c.query('VACUUM ANALYZE');
  step('VACUUM ANALYZE');
  const took = (performance.now() - started) / 1000;
  // Bulk writes go through a small ring of buffers: read the set into shared buffers, as a server
  // that has been serving it holds it (the private cluster is sized for it).
  const warmed = performance.now();
  if (cluster) {
    await c.query('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
    await c.query(`SELECT sum(pg_prewarm(oid)) FROM pg_class WHERE relkind IN ('r', 'i', 't') AND relpersistence = 'p'`);
  }
  await c.end();
  // The seed's dirty pages written out now: a checkpoint's work would land on the first path.
  const admin = new pg.Client(ADMIN);
  await admin.connect();
  await admin.query('CHECKPOINT');
  await admin.end();
  return { took, warmed: (performance.now() - warmed) / 1000, steps: steps.join(', ') };
}

interface Figure {
  serverUs: number;
  postgresUs: number;
  /** Of postgresUs, the background processes'. */
  backgroundUs: number;
  statements: number;
  rps: number;
  requests: number;
  bad: number;
  /** Median latency, ms. */
  p50: number;
  /** Seconds measured (the load and the wait after it). */
  window: number;
  /** Of serverUs, the kernel's (system time: sockets, wake-ups). */
  serverSystemUs: number;
  /** WAL written per request (every process), and of it the full-page images' count. */
  walBytes: number;
  walFpi: number;
  /** SCALE_DIAG: the path's statements and its full-page images by relation, one line each. */
  diag: string[];
}

/** What the server and PostgreSQL spend per second with no request at all (the periodic jobs). */
interface Idle {
  serverPerS: number;
  postgresPerS: number;
}
const idleOf = new Map<'small' | 'large', Idle>();

/** One load: `next` gives each request's path and headers; `amount` requests or SECONDS seconds. */
async function measure(
  admin: pg.Client,
  db: string,
  server: Proc,
  load: { path: string; method?: string; body?: (i: number) => string; headers: (i: number) => Record<string, string>; amount?: number; expect: number; connections?: number },
): Promise<Figure> {
  let i = 0;
  let bad = 0;
  let done = 0;
  let latency = 0;
  // A path measured for a duration (the same request again and again) first runs a second
  // unmeasured, like the suites' windows (lib.ts): its figure is the server's steady state, not
  // V8 still compiling the path. A path of distinct requests (`amount`) is warmed by its caller
  // on requests of its own.
  if (load.amount === undefined) {
    await new Promise<void>((resolve, reject) => {
      autocannon(
        {
          url: server.url + load.path,
          method: (load.method ?? 'GET') as 'GET',
          connections: load.connections ?? 16,
          duration: 1,
          requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...load.headers(i++) }, ...(load.body ? { body: load.body(i) } : {}) }) }],
        },
        (err) => (err ? reject(err) : resolve()),
      );
    });
  }
  // Every path starts from a checkpoint: the pages earlier paths dirtied are written out before
  // its window, not by the checkpointer inside it (a timed checkpoint falling in one path's window
  // and not the other set's moved a login's figure by half). Each path then pays the full-page
  // image of every page it is the first to change, as it would right after any checkpoint.
  await admin.query('CHECKPOINT');
  const lsn0 = DIAG ? await insertLsn(admin) : '';
  if (DIAG) await admin.query('SELECT pg_stat_statements_reset()');
  const s0 = await statements(admin, db);
  const w0 = await wal(admin);
  const p0 = postgresCpu();
  const c0 = cpuSeconds(server.pid);
  const k0 = cpuTimes(server.pid).system;
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const inst = autocannon(
      {
        url: server.url + load.path,
        method: (load.method ?? 'GET') as 'GET',
        connections: load.connections ?? 16,
        ...(load.amount !== undefined ? { amount: load.amount } : { duration: SECONDS }),
        requests: [
          {
            setupRequest: (req) => {
              const n = i++;
              return { ...req, headers: { ...req.headers, ...load.headers(n) }, ...(load.body ? { body: load.body(n) } : {}) };
            },
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        latency = result.latency.p50;
        resolve();
      },
    );
    inst.on('response', (_c, status) => {
      done++;
      if (status !== load.expect) bad++;
    });
  });
  const seconds = (performance.now() - t0) / 1000;
  // The work a path leaves behind it (the session touches written within a second) is its cost too.
  await new Promise((r) => setTimeout(r, 1500));
  const server1 = cpuSeconds(server.pid);
  const k1 = cpuTimes(server.pid).system;
  const pg1 = postgresCpu();
  // A backend's statistics reach pg_stat_database at most once a second while it works, and
  // within 10 s once it is idle (PostgreSQL 15's PGSTAT_IDLE_INTERVAL).
  await new Promise((r) => setTimeout(r, 11_000));
  const s1 = await statements(admin, db);
  const w1 = await wal(admin);
  const diag = DIAG ? [...(await statementDetail(admin, db, done)), await fpiByRelation(db, lsn0, await insertLsn(admin), done)] : [];
  return {
    diag,
    serverUs: ((server1 - c0) * 1e6) / done,
    postgresUs: ((pg1.all - p0.all) * 1e6) / done,
    backgroundUs: ((pg1.background - p0.background) * 1e6) / done,
    statements: (s1 - s0) / done,
    rps: done / seconds,
    requests: done,
    bad,
    p50: latency,
    window: seconds + 1.5,
    serverSystemUs: ((k1 - k0) * 1e6) / done,
    walBytes: (w1.bytes - w0.bytes) / done,
    walFpi: (w1.fpi - w0.fpi) / done,
  };
}

async function insertLsn(admin: pg.Client): Promise<string> {
  const { rows } = await admin.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
  return rows[0]!.lsn;
}

/** SCALE_DIAG: the statements of `db` since the reset, per request of the path, most time first. */
async function statementDetail(admin: pg.Client, db: string, requests: number): Promise<string[]> {
  const { rows } = await admin.query<{ query: string; calls: string; exec: number; plan: number; hit: string; dirtied: string; fpi: string }>(
    `SELECT s.query, s.calls::bigint AS calls, s.total_exec_time AS exec, s.total_plan_time AS plan,
       s.shared_blks_hit::bigint AS hit, s.shared_blks_dirtied::bigint AS dirtied, s.wal_fpi::bigint AS fpi
     FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
     WHERE d.datname = $1 ORDER BY s.total_exec_time + s.total_plan_time DESC LIMIT 6`,
    [db],
  );
  return rows.map((r) => {
    const calls = Number(r.calls);
    const per = (n: number) => (n / requests).toFixed(2);
    const text = r.query.replace(/\s+/g, ' ').slice(0, 70);
    return `${per(calls)} calls/req, exec ${((r.exec * 1000) / calls).toFixed(0)} µs + plan ${((r.plan * 1000) / calls).toFixed(0)} µs per call, ` +
      `per req: ${per(Number(r.hit))} buffers hit, ${per(Number(r.dirtied))} dirtied, ${per(Number(r.fpi))} full-page images — ${text}`;
  });
}

/** SCALE_DIAG: the full-page images written between two WAL positions, per request, by relation. */
async function fpiByRelation(db: string, from: string, to: string, requests: number): Promise<string> {
  if (!cluster || from === to) return 'full-page images by relation: none';
  // Same binaries as the cluster: pg_waldump reads only its own major version's WAL.
  const out = spawnSync(join(binaries(), 'pg_waldump'), ['-p', join(cluster.data, 'pg_wal'), '-s', from, '-e', to], { encoding: 'utf8', maxBuffer: 1 << 30 });
  // Counted by relation file and fork (main, or the visibility map's, ...).
  const counts = new Map<string, { node: string; fork: string; n: number }>();
  for (const m of (out.stdout ?? '').matchAll(/rel \d+\/\d+\/(\d+)(?: fork (\w+))? blk \d+ FPW/g)) {
    const node = m[1]!;
    const fork = m[2] ?? 'main';
    const entry = counts.get(`${node} ${fork}`) ?? { node, fork, n: 0 };
    entry.n++;
    counts.set(`${node} ${fork}`, entry);
  }
  const c = new pg.Client(urlOf(db));
  await c.connect();
  const { rows } = await c.query<{ node: string; name: string }>('SELECT relfilenode::text AS node, relname AS name FROM pg_class WHERE relfilenode <> 0');
  await c.end();
  const names = new Map(rows.map((r) => [r.node, r.name]));
  const shown = [...counts.values()]
    .sort((a, b) => b.n - a.n)
    .map((e) => `${names.get(e.node) ?? e.node}${e.fork === 'main' ? '' : ` (${e.fork})`} ${(e.n / requests).toFixed(2)}`);
  return `full-page images by relation, per request: ${shown.join(', ') || 'none'}${out.status === 0 ? '' : ` (pg_waldump: ${(out.stderr || String(out.error ?? '')).trim().slice(0, 200)})`}`;
}

async function flushRedis(): Promise<void> {
  const r = new Redis(REDIS);
  await r.flushdb();
  r.disconnect();
}

/** Waits until `text` has not been seen running on `db` for a second (polled every 20 ms; at most 5 minutes). */
async function quietFrom(admin: pg.Client, db: string, text: string): Promise<void> {
  const until = performance.now() + 300_000;
  let seen = performance.now();
  while (performance.now() - seen < 1000 && performance.now() < until) {
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query = $2`, [db, text]);
    if (rows[0].n > 0) seen = performance.now();
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function runPaths(admin: pg.Client, db: string, url: string, accounts: number, tag: 'small' | 'large'): Promise<Map<string, Figure>> {
  await flushRedis();
  const server = await startServer({ ZONE, ENCRYPTION_KEY, DATABASE_URL: url, REDIS_URL: REDIS, PWNED_PASSWORDS_URL: 'off', LOG_LEVEL: 'error' });
  const out = new Map<string, Figure>();
  const run = async (name: string, load: Parameters<typeof measure>[3]) => {
    if (!ONLY || ONLY.test(name)) out.set(name, await measure(admin, db, server, load));
  };
  try {
    // Let the start-up settle and the server's known-hosts filter build (its pages seen running).
    await new Promise((r) => setTimeout(r, 2000));
    await quietFrom(admin, db, TUNNEL_HOSTS_PAGE_SQL);
    const bearer = (n: number) => ({ authorization: `Bearer ${tokenOf(n)}`, 'content-type': 'application/json' });
    const typename = JSON.stringify({ query: '{ __typename }' });
    const sessions = accounts * 5;
    // Warm the server's code first (unmeasured): the paths then compare at steady state, not the
    // first one measured paying for V8's compilation.
    await measure(admin, db, server, { path: '/graphql', method: 'POST', body: () => typename, headers: () => bearer(1), expect: 200 });
    await measure(admin, db, server, { path: '/api/sessions', headers: () => bearer(2), expect: 200, connections: 8 });
    // The idle rate: the periodic jobs (outbox, webhook queue, status refresher, retention lease)
    // run on every instance with or without traffic; their share of a short load is shown apart.
    await new Promise((r) => setTimeout(r, 2000));
    const i0 = postgresCpu().all;
    const is0 = cpuSeconds(server.pid);
    await new Promise((r) => setTimeout(r, 5000));
    idleOf.set(tag, { postgresPerS: (postgresCpu().all - i0) / 5, serverPerS: (cpuSeconds(server.pid) - is0) / 5 });
    // The cold path's code warmed the same way, on sessions no measured load uses: long enough
    // that V8 has compiled it, so that the window measures the path and not its compilation
    // (bench/HISTORY.md has the runs that showed it).
    const warmCold = Math.min(5000, Math.floor(sessions / 20));
    await measure(admin, db, server, { path: '/graphql', method: 'POST', body: () => typename, headers: (i) => bearer(10 + i + 1), amount: warmCold, expect: 200 });
    // Cold: every request a session no request has used (its cache entry absent).
    const coldFrom = 10 + warmCold + 10;
    const coldAmount = Math.min(Math.floor(sessions / 4), 4000);
    await run('session check, cold (distinct sessions)', { path: '/graphql', method: 'POST', body: () => typename, headers: (i) => bearer(coldFrom + i + 1), amount: coldAmount, expect: 200 });
    // The same, for sessions used within the last minute: no touch is due, so the check only reads.
    const readOnlyFrom = coldFrom + coldAmount + 10;
    const seen = new pg.Client(url);
    await seen.connect();
    await seen.query(
      `UPDATE sessions SET last_seen_at = now() WHERE token_hash = ANY (ARRAY(
         SELECT encode(sha256(convert_to(${TOKEN_SQL('g')}, 'UTF8')), 'hex') FROM generate_series($1::int, $2::int) g))`,
      [readOnlyFrom + 1, readOnlyFrom + coldAmount],
    );
    await seen.end();
    await run('session check, cold, no touch due (read only)', { path: '/graphql', method: 'POST', body: () => typename, headers: (i) => bearer(readOnlyFrom + i + 1), amount: coldAmount, expect: 200 });
    await run('session check, warm (cached)', { path: '/graphql', method: 'POST', body: () => typename, headers: () => bearer(1), expect: 200 });
    // Account view cold: distinct accounts (their first session each, unused so far beyond the cold run).
    const base = readOnlyFrom + coldAmount + 10;
    const viewAmount = Math.min(Math.floor((sessions - base) / 10) - 2, 4000);
    // Its code warmed first, like the session check's, on accounts after the measured ones (none
    // on a set too small to spare them): it reads the session with the view, a path of its own.
    const spare = Math.min(Math.floor((sessions - (base + (viewAmount + 1) * 5)) / 5) - 1, 5000);
    if (spare > 0) await measure(admin, db, server, { path: '/api/account', headers: (i) => bearer(base + (viewAmount + 1 + i + 1) * 5), amount: spare, expect: 200 });
    await run('GET /api/account, cold session and view', { path: '/api/account', headers: (i) => bearer(base + (i + 1) * 5), amount: viewAmount, expect: 200 });
    await run('GET /api/account, warm', { path: '/api/account', headers: () => bearer(1), expect: 200 });
    // Cards: a cached hit, real tunnels' hosts cold (distinct), random unknown hosts (a flood).
    const hit = { host: `app--user2.${ZONE}` };
    await run('card hit (cached)', { path: '/.well-known/mcp/server-card.json', headers: () => hit, expect: 200 });
    const cardCold = Math.min(Math.floor(accounts / 2) - 10, 5000);
    await run('card miss, existing tunnels (distinct hosts)', { path: '/.well-known/mcp/server-card.json', headers: (i) => ({ host: `app--user${2 * (i + 3)}.${ZONE}` }), amount: cardCold, expect: 200 });
    await run('card miss, random unknown hosts (flood)', {
      path: '/.well-known/mcp/server-card.json',
      headers: () => ({ host: `${Math.random().toString(36).slice(2, 10)}--${Math.random().toString(36).slice(2, 10)}.${ZONE}` }),
      expect: 404,
    });
    // Lists: 100 sessions (account 1 gets 95 more), 50 events.
    const c = new pg.Client(url);
    await c.connect();
    await c.query(
      `INSERT INTO sessions (id, account_id, token_hash, user_agent, ip, created_at, last_seen_at, authenticated_at, expires_at)
       SELECT md5('x' || g)::uuid::text, md5('a1')::uuid::text, md5('x' || g) || md5('y' || g), 'Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0', '203.0.113.x', now(), now(), now(), now() + interval '20 days'
       FROM generate_series(1, 95) g ON CONFLICT DO NOTHING`,
    );
    await c.query(
      `INSERT INTO security_events (account_id, type, at, ip, user_agent, detail)
       SELECT md5('a1')::uuid::text, 'slug_changed', now() - g * interval '1 minute', '203.0.113.x', 'Mozilla/5.0', '{"from":"a","to":"b"}' FROM generate_series(1, 50) g`,
    );
    await c.end();
    await run('GET /api/sessions (100 sessions)', { path: '/api/sessions', headers: () => bearer(1), expect: 200, connections: 8 });
    await run('GET /api/account/activity (50 events)', { path: '/api/account/activity?limit=50', headers: () => bearer(1), expect: 200, connections: 8 });
    // Logins: distinct accounts, argon2-bound; the database's share is what grows with the data.
    // Where its reads from outside shared buffers land (the tables and indexes), per login.
    const reads0 = await blockReads(url);
    await run('POST /auth/login', {
      path: '/auth/login',
      method: 'POST',
      body: (i) => JSON.stringify({ email: `user${(i % Math.min(accounts, 800)) + 100}@example.com`, password: PASSWORD }),
      headers: () => ({ 'content-type': 'application/json' }),
      amount: 600,
      connections: 4,
      expect: 200,
    });
    const logins = out.get('POST /auth/login')?.requests;
    if (logins) {
      const reads = [...(await blockReads(url))].map(([name, n]) => [name, (n - (reads0.get(name) ?? 0)) / logins] as const).filter(([, n]) => n >= 0.05);
      const shown = reads.sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ${n.toFixed(2)}`);
      notes.push(`login on the ${tag} set, blocks read from outside shared buffers per request: ${shown.join(', ') || 'none'}`);
    }
  } finally {
    await server.stop();
  }
  return out;
}

async function explain(url: string): Promise<string[]> {
  const c = new pg.Client(url);
  await c.connect();
  const plans: string[] = [];
  const show = async (name: string, text: string, values: unknown[]) => {
    await c.query('BEGIN');
    try {
      // Priced out, a sequential scan shows only where no index can serve the statement (the seed
      // leaves some tables empty, where the planner would rightly scan them).
      await c.query('SET LOCAL enable_seqscan = off');
      const { rows } = await c.query(`EXPLAIN ${text}`, values);
      const plan = rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
      const scans = plan.split('\n').filter((l) => /Scan/.test(l)).map((l) => l.trim().replace(/\s+\(cost.*$/, ''));
      plans.push(`${name}: ${scans.join('; ')}`);
    } finally {
      await c.query('ROLLBACK');
    }
  };
  for (const s of SWEEPS) await show(`retention ${s.name}`, batchStatement(s), [s.cutoff(Date.now()), 1000]);
  await show('outbox expired-link sweep', OUTBOX_EXPIRED_SWEEP, [new Date()]);
  await show('outbox claim', OUTBOX_CLAIM, [20]);
  await show(
    'webhook queue claim',
    `SELECT d2.id FROM webhook_deliveries d2 JOIN webhooks w ON w.id = d2.webhook_id
     WHERE d2.status = 'pending' AND d2.next_attempt_at <= $1 AND (d2.locked_until IS NULL OR d2.locked_until <= $1) AND w.enabled
     ORDER BY d2.next_attempt_at LIMIT 20 FOR UPDATE OF d2 SKIP LOCKED`,
    [new Date()],
  );
  await show('status history purge (minutes)', 'DELETE FROM status_history_minutes WHERE minute < $1', [new Date(Date.now() - 86_400_000)]);
  await show('session check (cold)', 'SELECT id FROM sessions WHERE token_hash = $1', ['x']);
  const ids = Array.from({ length: 1000 }, (_, i) => `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`);
  const at = ids.map(() => new Date());
  await show('session touches (a batch of 1,000)', TOUCH_ROWS, [ids, at, at, 1, 1]);
  await show('card miss', 'SELECT t.id FROM tunnels t JOIN accounts a ON a.id = t.account_id WHERE a.slug = $1 AND t.subdomain = $2', ['user5', 'app']);
  await show('activity page', 'SELECT seq FROM security_events WHERE account_id = $1 ORDER BY seq DESC LIMIT 51', ['x']);
  await c.end();
  return plans;
}

// What the run's own cluster needs from the machine, checked before anything starts: a missing
// requirement is said (and with SCALE_HUGE_PAGES=require, stops the run), never provided here.
if (!EXTERNAL) {
  try {
    hugePages = hugePagesSetting(hugePagesMode(process.env.SCALE_HUGE_PAGES), checkHugePages(SHARED_BUFFERS));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
  if (hugePages.warning) process.stderr.write(`${hugePages.warning}\n`);
}
const built = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
if (!EXTERNAL) {
  cluster = await startPrivatePostgres(
    {
      shared_buffers: SHARED_BUFFERS,
      max_connections: '100',
      huge_pages: hugePages?.setting ?? 'off',
      // Room for the seed's WAL between checkpoints (the default 1GB checkpointed every few
      // seconds of it); each path starts from a checkpoint of its own anyway.
      max_wal_size: '16GB',
      ...(DIAG ? { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' } : {}),
    },
    process.env.SCALE_KEEP === '1',
  );
  const own = cluster;
  ADMIN = own.urlOf('postgres');
  urlOf = (db) => own.urlOf(db);
}
const admin = new pg.Client(ADMIN);
await admin.connect();
// The view and its reset are read from the admin's database.
if (DIAG) await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
const stamp = Date.now();
const dbs = { small: `scale_small_${stamp}`, large: `scale_large_${stamp}` };
const results = new Map<string, { small?: Figure; large?: Figure }>();
const upkeeps: Upkeep[] = [];
const filterDbs: string[] = [];
const notes: string[] = [];
{
  const { rows } = await admin.query(`SELECT current_setting('server_version') AS v, current_setting('shared_buffers') AS sb`);
  const huge = hugePages
    ? hugePages.setting === 'on'
      ? ', on huge pages'
      : `, **without huge pages** (${hugePages.warning ?? 'SCALE_HUGE_PAGES=off'}; every backend's first touch of each 4 kB page of shared memory counts)`
    : '';
  notes.push(`PostgreSQL ${rows[0].v} (${cluster ? "the run's own cluster" : EXTERNAL}), shared_buffers ${rows[0].sb}${huge}`);
}
try {
  const hash = await argon2.hash(PASSWORD, argon2Options());
  for (const [tag, accounts] of [['small', SMALL], ['large', LARGE]] as const) {
    if (!SETS.includes(tag)) continue;
    const db = dbs[tag];
    await admin.query(`CREATE DATABASE ${db}`);
    // Migrate: a server start applies the migrations.
    const first = await startServer({ ZONE, ENCRYPTION_KEY, DATABASE_URL: urlOf(db), LOG_LEVEL: 'error' });
    await first.stop();
    const { took, warmed, steps } = await seed(urlOf(db), accounts, hash);
    if (DIAG) {
      const c = new pg.Client(urlOf(db));
      await c.connect();
      await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await c.end();
    }
    const { rows } = await admin.query(`SELECT pg_size_pretty(pg_database_size($1)) AS size`, [db]);
    notes.push(
      `${tag}: ${accounts} accounts, ${accounts * 5} sessions, ${accounts} tunnels, ${accounts * 10} security events seeded in ${took.toFixed(0)} s (${steps}; ${rows[0].size})` +
        (cluster ? `, read into shared buffers in ${warmed.toFixed(0)} s` : ''),
    );
    process.stderr.write(`${notes.at(-1)}\n`);
    const figures = await runPaths(admin, db, urlOf(db), accounts, tag);
    for (const [name, f] of figures) results.set(name, { ...results.get(name), [tag]: f });
  }
  if (SETS.includes('large')) notes.push(...(await explain(urlOf(dbs.large))).map((p) => `EXPLAIN on the large set (sequential scans priced out), ${p}`));
  for (const tunnels of FILTER_SIZES) {
    const db = `scale_filter_${tunnels}_${stamp}`;
    filterDbs.push(db);
    await admin.query(`CREATE DATABASE ${db}`);
    const first = await startServer({ ZONE, ENCRYPTION_KEY, DATABASE_URL: urlOf(db), LOG_LEVEL: 'error' });
    await first.stop();
    const seeded = await seedTunnels(urlOf(db), tunnels);
    process.stderr.write(`filter: ${tunnels} tunnels seeded in ${seeded.toFixed(0)} s\n`);
    const u = await measureUpkeep(urlOf(db), tunnels, seeded, ZONE, () => postgresCpu().all);
    upkeeps.push(u);
    process.stderr.write(`${upkeepLine(u)}\n`);
    await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  }
} finally {
  // SCALE_KEEP=1: the databases (and the run's own cluster, still running) stay for a look
  // afterwards (EXPLAIN, pg_statio); drop or stop them by hand.
  if (process.env.SCALE_KEEP === '1') {
    const where = cluster ? ` on ${ADMIN} (stop: kill -INT ${cluster.pid}; then rm -r ${cluster.dir})` : '';
    process.stderr.write(`kept: ${Object.values(dbs).join(', ')}${where}\n`);
  } else for (const db of [...Object.values(dbs), ...filterDbs]) await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => {});
  await admin.end();
  if (cluster && process.env.SCALE_KEEP !== '1') {
    await cluster.stop();
  }
}

function upkeepLine(u: Upkeep): string {
  return `filter at ${u.tunnels} tunnels: build ${u.build.pages} pages ${(u.build.wallMs / 1000).toFixed(2)} s (${u.build.nodeMs.toFixed(0)} ms instance, ${u.build.postgresMs.toFixed(0)} ms PostgreSQL); ` +
    `an hour of upkeep ${u.hour.nodeMs.toFixed(1)} ms instance, ${u.hour.postgresMs.toFixed(1)} ms PostgreSQL over ${u.hour.checks} checks`;
}

const kb = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)} kB` : `${n.toFixed(0)} B`);
const us = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} ms` : `${n.toFixed(0)} µs`);
/** PostgreSQL's CPU per request less what it spends idle over the same window (the periodic jobs). */
const netOf = (tag: 'small' | 'large', f: Figure) => f.postgresUs - ((idleOf.get(tag)?.postgresPerS ?? 0) * f.window * 1e6) / f.requests;
const lines = [
  '| path | server CPU/req small → large | PostgreSQL CPU/req small → large | net of idle | of which background processes | statements/req small → large | WAL/req (full-page images) small → large | req/s small → large | p50 ms small → large |',
  '|---|---|---|---|---|---|---|---|---|',
];
for (const [name, { small, large }] of results) {
  const bad = (small?.bad ?? 0) + (large?.bad ?? 0) > 0 ? ` (unexpected statuses: ${small?.bad ?? 0}/${large?.bad ?? 0})` : '';
  const pair = (f: (x: Figure) => string) => `${small ? f(small) : '–'} → ${large ? f(large) : '–'}`;
  lines.push(
    `| ${name}${bad} | ${pair((x) => `${us(x.serverUs)} (kernel ${us(x.serverSystemUs)})`)} | ${pair((x) => us(x.postgresUs))} | ${small ? us(netOf('small', small)) : '–'} → ${large ? us(netOf('large', large)) : '–'} | ${pair((x) => us(x.backgroundUs))} | ` +
      `${pair((x) => x.statements.toFixed(2))} | ${pair((x) => `${kb(x.walBytes)} (${x.walFpi.toFixed(2)})`)} | ${pair((x) => x.rps.toFixed(0))} | ${pair((x) => x.p50.toFixed(1))} |`,
  );
}
const get = (name: string) => results.get(name)?.large;
const cold = get('session check, cold (distinct sessions)');
const warm = get('session check, warm (cached)');
const flood = get('card miss, random unknown hosts (flood)');
const hit = get('card hit (cached)');
const loginSmall = results.get('POST /auth/login')?.small;
const loginLarge = results.get('POST /auth/login')?.large;
const readOnly = get('session check, cold, no touch due (read only)');
for (const [name, { small, large }] of results) {
  for (const [tag, f] of [['small', small], ['large', large]] as const) for (const line of f?.diag ?? []) notes.push(`${name}, ${tag} set: ${line}`);
}
for (const [tag, idle] of idleOf) notes.push(`idle (${tag} set): the server ${(idle.serverPerS * 1000).toFixed(1)} ms of CPU per second, PostgreSQL ${(idle.postgresPerS * 1000).toFixed(1)} ms per second`);
if (readOnly && warm) notes.push(`cold session check with no touch due, on the large set: ${(readOnly.serverUs / warm.serverUs).toFixed(2)}× the cached check's server CPU (target ≤ 3), ${us(readOnly.postgresUs)} PostgreSQL CPU, ${us(netOf('large', readOnly))} net of idle (target ≤ 0.3 ms), ${readOnly.statements.toFixed(2)} statements`);
if (cold && warm) notes.push(`cold session check on the large set: ${(cold.serverUs / warm.serverUs).toFixed(2)}× the cached check's server CPU (target ≤ 3), ${us(cold.postgresUs)} PostgreSQL CPU, ${us(netOf('large', cold))} net of idle (target ≤ 0.3 ms), ${cold.statements.toFixed(2)} statements`);
const accountCold = get('GET /api/account, cold session and view');
const accountWarm = get('GET /api/account, warm');
if (accountCold && accountWarm) {
  notes.push(
    `cold GET /api/account on the large set: ${(accountCold.serverUs / accountWarm.serverUs).toFixed(2)}× the cached one's server CPU (target ≤ 3), ` +
      `${us(accountCold.postgresUs)} PostgreSQL CPU, ${us(netOf('large', accountCold))} net of idle (target ≤ 0.3 ms), ${accountCold.statements.toFixed(2)} statements`,
  );
}
if (flood && hit) notes.push(`random unknown hosts on the large set: ${flood.statements.toFixed(3)} statements per request (target ≤ 0.1), ${(flood.rps / hit.rps).toFixed(2)} of the card hit's req/s (target ≥ 0.5)`);
if (loginSmall && loginLarge) notes.push(`login PostgreSQL CPU large ÷ small: ${(loginLarge.postgresUs / loginSmall.postgresUs).toFixed(2)}, net of idle ${(netOf('large', loginLarge) / netOf('small', loginSmall)).toFixed(2)} (target ≤ 1.15)`);
notes.push('statements/req counts transactions in pg_stat_database (the background workers add a few per second); PostgreSQL CPU is every process of its cluster (the run’s own; every postgres process with SCALE_POSTGRES_URL); 2-core machine, load generator on it');
const upkeepTable = upkeeps.length === 0 ? '' : [
  '',
  '| tunnels | seed | build (once, at start): pages, wall, instance CPU, PostgreSQL CPU | an hour of upkeep: checks, instance CPU, PostgreSQL CPU, rows read (changes made) | plans |',
  '|---|---|---|---|---|',
  ...upkeeps.map((u) =>
    `| ${u.tunnels.toLocaleString('en')} | ${u.seedSeconds.toFixed(0)} s | ${u.build.pages}, ${(u.build.wallMs / 1000).toFixed(2)} s, ${u.build.nodeMs.toFixed(0)} ms, ${u.build.postgresMs.toFixed(0)} ms | ` +
      `${u.hour.checks}, ${u.hour.nodeMs.toFixed(1)} ms, ${u.hour.postgresMs.toFixed(1)} ms, ${u.hour.rows} (${u.hour.changes}) | ${u.plans.some((p) => p.whole) ? '**a whole large table read**' : 'every statement on an index'} |`,
  ),
  '',
  ...upkeeps.flatMap((u) => u.plans.map((p) => `- filter at ${u.tunnels.toLocaleString('en')} tunnels, EXPLAIN (as planned) of ${p.name}: ${p.scans}`)),
].join('\n');
process.stdout.write(`\n${lines.join('\n')}\n${upkeepTable}\n\n${notes.map((n) => `- ${n}`).join('\n')}\n`);
if (upkeeps.some((u) => u.plans.some((p) => p.whole))) process.exitCode = 1;
