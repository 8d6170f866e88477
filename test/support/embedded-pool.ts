// Embedded databases kept open between the test servers of one process. Starting PGlite and
// copying the migrated template (scripts/test-template.ts) was most of an embedded test server's
// start; now a server that closes hands its database back reset to the template's state (every
// table emptied, identities restarted, the rows the migrations wrote put back, the session's
// prepared statements and settings discarded), and the next server of the process takes it.
// A database that cannot be reset is closed, never handed out again.
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

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * What brings a database back to the template's state, read from a fresh copy of the template:
 * one TRUNCATE of every table but the migrations' record, then the rows the migrations wrote (one
 * implicit transaction).
 */
function readResetSql(url: string): Promise<string> {
  return query(url, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY tablename`,
    );
    const tables = rows.map((r) => quoted(r.name));
    const statements = [`TRUNCATE ${tables.join(', ')} RESTART IDENTITY CASCADE`];
    for (const table of tables) {
      const seeded = await client.query<{ rows: string | null }>(`SELECT json_agg(t)::text AS rows FROM ${table} t`);
      const json = seeded.rows[0]!.rows;
      if (json !== null) statements.push(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, ${literal(json)})`);
    }
    return statements.join(';\n');
  });
}

async function open(template: string): Promise<Kept> {
  const dir = mkdtempSync(join(tmpdir(), 'tunnel-svc-pglite-'));
  dirs.add(dir);
  cpSync(template, join(dir, 'pglite'), { recursive: true });
  const db = await startEmbeddedPostgres(dir);
  // Read while this copy is still the template's state.
  resetSql ??= readResetSql(db.url);
  await resetSql;
  return { db, dir };
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
        idle.push(kept);
      } catch {
        await discard(kept);
      }
    },
  };
}
