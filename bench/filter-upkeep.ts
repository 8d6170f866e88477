// The known-hosts filter's cost at each size (`npm run bench:scale`, issue 58): a database of
// accounts and tunnels only (ten tunnels an account), seeded per size; on it, one build (what an
// instance pays once, at start) and an hour of upkeep as an instance runs it, one check every
// CHECK_MS with the service's changes in between (tunnels created, renamed and deleted, a slug
// renamed), and the plans (EXPLAIN, as the planner chooses, nothing priced out) of every
// statement the filter runs, with cursors from the real key range: the first, middle and last
// pages of the build, and a check from a fresh and from an old watermark.
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { CHECK_MS, KnownHosts } from '../src/domain/cards/known-hosts.js';
import { HOSTS_CHANGED_SQL, TUNNEL_HOSTS_PAGE, TUNNEL_HOSTS_PAGE_SQL } from '../src/domain/cards/store.js';
import type { Sql } from '../src/domain/store.js';

export interface Upkeep {
  tunnels: number;
  seedSeconds: number;
  build: { wallMs: number; nodeMs: number; postgresMs: number; pages: number };
  /** One hour of checks (3600 s ÷ CHECK_MS of them), the changes between them not counted. */
  hour: { checks: number; nodeMs: number; postgresMs: number; rows: number; changes: number };
  /** Each statement shape: its scans, and whether any reads a whole large table. */
  plans: { name: string; scans: string; whole: boolean }[];
}

/** Changes the service makes between two checks (a busy hour: 600 tunnels created, 600 deleted, 60 renamed, 60 slugs). */
const CHURN = { created: 10, deleted: 10, renamed: 1, slugs: 1 };

export async function seedTunnels(url: string, tunnels: number): Promise<number> {
  const c = new pg.Client(url);
  await c.connect();
  const t0 = performance.now();
  try {
    await c.query('SET synchronous_commit = off');
    // Consistent by construction; the triggers (hosts_xid, tunnels_version) off like the foreign keys.
    await c.query('SET session_replication_role = replica');
    await c.query(`SET maintenance_work_mem = '1GB'`);
    const accounts = Math.ceil(tunnels / 10);
    await c.query(
      `INSERT INTO accounts (id, email, email_normalized, password_hash, email_verified, slug, created_at, updated_at, tunnel_count)
       SELECT md5('a' || g)::uuid::text, 'user' || g || '@example.com', 'user' || g || '@example.com', NULL, true, 'user' || g, now(), now(), 10
       FROM generate_series(1, $1) g`,
      [accounts],
    );
    // One tunnel in a hundred with a custom domain.
    await c.query(
      `INSERT INTO tunnels (id, account_id, subdomain, custom_domain, discoverable, created_at, updated_at)
       SELECT md5('t' || g)::uuid::text, md5('a' || ((g - 1) / 10 + 1))::uuid::text, 'app' || (g % 10),
         CASE WHEN g % 100 = 0 THEN 'd' || g || '.example.org' END, g % 2 = 0, now(), now()
       FROM generate_series(1, $1) g`,
      [tunnels],
    );
    await c.query('VACUUM ANALYZE accounts, tunnels');
  } finally {
    await c.end();
  }
  return (performance.now() - t0) / 1000;
}

/** The build, an hour of checks and the plans, on a seeded database; `postgresCpu` reads the cluster's CPU seconds. */
export async function measureUpkeep(url: string, tunnels: number, seedSeconds: number, zone: string, postgresCpu: () => number): Promise<Upkeep> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  let pages = 0;
  let rows = 0;
  const sql = (async <Row>(text: string, values: readonly unknown[]): Promise<Row[]> => {
    if (text === TUNNEL_HOSTS_PAGE_SQL) pages++;
    const result = await pool.query({ name: `k${text.length}`, text, values: [...values] });
    if (text === HOSTS_CHANGED_SQL) rows += result.rows.filter((r: { subdomain: string | null }) => r.subdomain !== null).length;
    return result.rows as Row[];
  }) as Sql;
  const writer = new pg.Client(url);
  await writer.connect();
  try {
    const fail = (err: unknown) => {
      throw err;
    };
    // A first build on the connection, unmeasured (a new backend first faults in the buffers it touches).
    await new KnownHosts(sql, zone, fail).rebuild(0);
    pages = 0;
    const p0 = postgresCpu();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const filter = new KnownHosts(sql, zone, fail);
    await filter.rebuild(0);
    const wallMs = performance.now() - t0;
    const c1 = process.cpuUsage(c0);
    const build = { wallMs, nodeMs: (c1.user + c1.system) / 1000, postgresMs: (postgresCpu() - p0) * 1000, pages };

    const checks = Math.round(3_600_000 / CHECK_MS);
    let nodeUs = 0;
    let postgresS = 0;
    let changes = 0;
    rows = 0;
    const accounts = Math.ceil(tunnels / 10);
    for (let i = 1; i <= checks; i++) {
      changes += await churn(writer, accounts, i);
      const p = postgresCpu();
      const c = process.cpuUsage();
      await filter.check(i * CHECK_MS);
      const d = process.cpuUsage(c);
      nodeUs += d.user + d.system;
      postgresS += postgresCpu() - p;
    }
    const hour = { checks, nodeMs: nodeUs / 1000, postgresMs: postgresS * 1000, rows, changes };
    return { tunnels, seedSeconds, build, hour, plans: await plans(writer, tunnels) };
  } finally {
    await writer.end();
    await pool.end();
  }
}

/** The service's changes between two checks, as its own statements make them (the triggers on). */
async function churn(c: pg.Client, accounts: number, round: number): Promise<number> {
  const owner = (n: number) => `md5('a' || ${1 + ((round * 7919 + n * 104_729) % accounts)})::uuid::text`;
  await c.query(
    `INSERT INTO tunnels (id, account_id, subdomain, created_at, updated_at)
     SELECT gen_random_uuid()::text, ${owner(0)}, 'new' || $1 || '-' || g, now(), now() FROM generate_series(1, $2) g`,
    [round, CHURN.created],
  );
  await c.query(`DELETE FROM tunnels WHERE id IN (SELECT id FROM tunnels WHERE subdomain LIKE 'new' || $1 || '-%' LIMIT $2)`, [round - 1, CHURN.deleted]);
  await c.query(`UPDATE tunnels SET subdomain = 'ren' || $1 WHERE account_id = ${owner(1)} AND subdomain = 'app1'`, [round]);
  await c.query(`UPDATE accounts SET slug = 'renamed' || $1 WHERE id = ${owner(2)}`, [round]);
  return CHURN.created + CHURN.deleted + CHURN.renamed + CHURN.slugs;
}

/** A table this large or larger must never be read whole by a statement of the filter. */
const LARGE_TABLE_ROWS = 10_000;

async function plans(c: pg.Client, tunnels: number): Promise<Upkeep['plans']> {
  const out: Upkeep['plans'] = [];
  const show = async (name: string, text: string, values: unknown[]) => {
    const { rows } = await c.query(`EXPLAIN ${text}`, values);
    const plan = rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    const scans = plan.split('\n').filter((l) => /Scan|Join|Loop|Gather/.test(l)).map((l) => l.trim().replace(/\s+\(cost.*$/, '').replace(/^->\s*/, ''));
    const whole = /Seq Scan on (tunnels|accounts)|Parallel|Gather/.test(plan) && tunnels >= LARGE_TABLE_ROWS;
    out.push({ name, scans: scans.join('; '), whole });
  };
  // Cursors from the key range: where the first, middle and last pages of a build start.
  const cursorAt = async (offset: number) => {
    const { rows } = await c.query(`SELECT account_id AS "accountId", subdomain FROM tunnels ORDER BY account_id, subdomain OFFSET $1 LIMIT 1`, [offset]);
    return [rows[0]!.accountId as string, rows[0]!.subdomain as string];
  };
  await show('build, first page', TUNNEL_HOSTS_PAGE_SQL, ['', '']);
  await show('build, middle page', TUNNEL_HOSTS_PAGE_SQL, await cursorAt(Math.floor(tunnels / 2)));
  await show('build, last page', TUNNEL_HOSTS_PAGE_SQL, await cursorAt(Math.max(0, tunnels - Math.floor(TUNNEL_HOSTS_PAGE / 2))));
  const { rows } = await c.query(`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS now`);
  await show('check, nothing changed since', HOSTS_CHANGED_SQL, [rows[0]!.now]);
  await show('check, an hour of changes since', HOSTS_CHANGED_SQL, [String(BigInt(rows[0]!.now) - 400n)]);
  return out;
}
