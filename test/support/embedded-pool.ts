// Embedded databases kept open between the test servers of one process. Starting PGlite and
// copying the migrated template (scripts/test-template.ts) was most of an embedded test server's
// start; now a server that closes hands its database back reset to the template's state
// (readResetSql below, after DISCARD ALL), and the next server of the process takes it. A
// database that cannot be reset is closed, never handed out again.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/infra/db/embedded.js';

interface Kept {
  db: EmbeddedPostgres;
  dir: string;
}

const idle: Kept[] = [];
/** Databases kept idle per process: a file that runs several servers at once leaves no more. */
const MAX_IDLE = 2;
const dirs = new Set<string>();
let resetSql: Promise<string> | null = null;

process.once('exit', () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function query<Row>(url: string, run: (client: pg.Client) => Promise<Row>): Promise<Row> {
  // Bounded: a database that does not answer is discarded, not waited on for the test's timeout.
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, query_timeout: 10_000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * What brings a database back to the template's state, read from a fresh copy of the template,
 * run as one transaction: one TRUNCATE of every table but the migrations' record, the rows the
 * migrations wrote put back (triggers off, identities as written), every sequence set back to
 * where the template left it.
 */
function readResetSql(url: string): Promise<string> {
  return query(url, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables
        WHERE schemaname NOT IN ('pg_catalog', 'information_schema') AND tablename <> '_prisma_migrations' ORDER BY 1`,
    );
    const statements = ['BEGIN', 'SET LOCAL session_replication_role = replica', `TRUNCATE ${rows.map((r) => r.name).join(', ')} RESTART IDENTITY CASCADE`];
    for (const { name } of rows) {
      const seeded = await client.query<{ rows: string | null }>(`SELECT json_agg(t)::text AS rows FROM ${name} t`);
      const json = seeded.rows[0]!.rows;
      if (json !== null) statements.push(`INSERT INTO ${name} OVERRIDING SYSTEM VALUE SELECT * FROM json_populate_recordset(NULL::${name}, ${literal(json)})`);
    }
    const sequences = await client.query<{ name: string; last: string | null }>(
      `SELECT format('%I.%I', schemaname, sequencename) AS name, last_value::text AS last FROM pg_sequences`,
    );
    for (const { name, last } of sequences.rows) {
      statements.push(last === null ? `ALTER SEQUENCE ${name} RESTART` : `SELECT setval(${literal(name)}, ${last}, true)`);
    }
    statements.push('COMMIT');
    return statements.join(';\n');
  });
}

async function open(template: string): Promise<Kept> {
  const dir = mkdtempSync(join(tmpdir(), 'tunnel-svc-pglite-'));
  dirs.add(dir);
  cpSync(template, join(dir, 'pglite'), { recursive: true });
  const kept = { db: await startEmbeddedPostgres(dir), dir };
  // Read while this copy is still the template's state; a failed read is tried again next time.
  try {
    await (resetSql ??= readResetSql(kept.db.url));
  } catch (err) {
    resetSql = null;
    await discard(kept);
    throw err;
  }
  return kept;
}

async function discard(kept: Kept): Promise<void> {
  await kept.db.close();
  rmSync(kept.dir, { recursive: true, force: true });
  dirs.delete(kept.dir);
}

/**
 * An embedded database in the template's state, for a server's openDatabase (`startEmbedded`);
 * its close() resets it and keeps it for the process's next server.
 */
export async function takeEmbedded(template: string): Promise<EmbeddedPostgres> {
  const kept = idle.pop() ?? (await open(template));
  let closed = false;
  return {
    url: kept.db.url,
    socketDir: kept.db.socketDir,
    async close() {
      if (closed) return;
      closed = true;
      try {
        const sql = await resetSql!;
        await query(kept.db.url, async (client) => {
          // Its own statement: DISCARD cannot run inside the implicit transaction of several.
          await client.query('DISCARD ALL');
          await client.query(sql);
        });
        if (idle.length < MAX_IDLE) idle.push(kept);
        else await discard(kept);
      } catch (err) {
        // Not silent: a reset that keeps failing would quietly cost every server a new database.
        process.stderr.write(`embedded-pool: reset failed, database discarded: ${(err as Error).message}\n`);
        await discard(kept);
      }
    },
  };
}
