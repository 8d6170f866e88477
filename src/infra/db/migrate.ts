// Applies migrations/<name>/migration.sql in name order and records each in _prisma_migrations
// exactly as `prisma migrate deploy` does (same table, same sha256 checksum), so either tool can
// take over a database. A PostgreSQL advisory lock keeps concurrent instances from racing.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

const LOCK_ID = 72707369; // Prisma's own advisory lock key for migrations.

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir: string): MigrationFile[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/** Returns the names of the migrations applied by this call. */
export async function applyMigrations(url: string, dir: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
    try {
      await client.query(CREATE_TABLE);
      const { rows } = await client.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
        'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
      );
      const done = new Map(rows.map((r) => [r.migration_name, r]));
      const applied: string[] = [];
      for (const m of readMigrations(dir)) {
        const prior = done.get(m.name);
        if (prior?.finished_at) {
          if (prior.checksum !== m.checksum) {
            throw new Error(`migration ${m.name} was changed after it was applied (checksum mismatch)`);
          }
          continue;
        }
        if (prior) throw new Error(`migration ${m.name} failed earlier; resolve it before starting`);
        const id = randomUUID();
        await client.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())',
          [id, m.checksum, m.name],
        );
        try {
          await client.query('BEGIN');
          await client.query(m.sql);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          await client.query('UPDATE "_prisma_migrations" SET logs = $2 WHERE id = $1', [id, String(err)]);
          throw new Error(`migration ${m.name} failed: ${(err as Error).message}`, { cause: err });
        }
        await client.query(
          'UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1',
          [id],
        );
        applied.push(m.name);
      }
      return applied;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]);
    }
  } finally {
    await client.end();
  }
}
