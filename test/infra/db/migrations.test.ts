// The SQL migrations against schema.prisma (DESIGN "Migrations and the Prisma CLI"): the migrated
// database has every table, column (type class, nullability) and unique constraint of the Prisma
// data model and nothing missing; the runner records Prisma-compatible rows in
// _prisma_migrations and is idempotent on restart.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { applyMigrations, readMigrations } from '../../../src/infra/db/migrate.js';
import { MIGRATIONS_DIR } from '../../../src/deps.js';
import { needs } from '../../support/backends.js';
import { readDatamodel } from '../../support/prisma-datamodel.js';
import { startTestServer, useServer } from '../../support/server.js';

const s = useServer();

interface RuntimeModel {
  dbName: string | null;
  fields: { name: string; kind: string; type: string; dbName?: string }[];
}

// schema.prisma, read from the file (test/support/prisma-datamodel.ts): nullability, lists, ids
// and uniques, and the db names (@map/@@map).
const datamodel = readDatamodel();

test('the reading of schema.prisma agrees with the generated client on every model and field', () => {
  const db = s.deps.db as unknown as { _runtimeDataModel?: { models: Record<string, RuntimeModel> } };
  assert.ok(db._runtimeDataModel, 'the Prisma client exposes its runtime data model');
  const runtime = Object.fromEntries(
    Object.entries(db._runtimeDataModel.models).map(([name, m]) => [
      name,
      { dbName: m.dbName ?? null, fields: m.fields.map((f) => ({ name: f.name, kind: f.kind, type: f.type, dbName: f.dbName ?? null })) },
    ]),
  );
  const read = Object.fromEntries(
    Object.entries(datamodel).map(([name, m]) => [
      name,
      { dbName: m.dbName, fields: m.fields.map((f) => ({ name: f.name, kind: f.kind, type: f.type, dbName: f.dbName })) },
    ]),
  );
  assert.deepEqual(read, runtime);
});

const PG_TYPES: Record<string, string[]> = {
  String: ['text', 'character varying'],
  Boolean: ['boolean'],
  Int: ['integer'],
  BigInt: ['bigint'],
  DateTime: ['timestamp with time zone', 'timestamp without time zone'],
  Bytes: ['bytea'],
  Json: ['jsonb', 'json'],
};

interface Column {
  table_name: string;
  column_name: string;
  data_type: string;
  is_nullable: 'YES' | 'NO';
}

test('the migrated database has exactly the tables and columns of schema.prisma, with matching types and nullability', async () => {
  const columns = await s.deps.db.$queryRaw<Column[]>`
    SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name <> '_prisma_migrations'`;
  const byTable = new Map<string, Map<string, Column>>();
  for (const c of columns) {
    if (!byTable.has(c.table_name)) byTable.set(c.table_name, new Map());
    byTable.get(c.table_name)!.set(c.column_name, c);
  }
  const expectedTables = new Set<string>();
  for (const [model, def] of Object.entries(datamodel)) {
    const table = def.dbName ?? model;
    expectedTables.add(table);
    const actual = byTable.get(table);
    assert.ok(actual, `table ${table} (model ${model}) is missing`);
    const expectedColumns = new Set<string>();
    for (const f of def.fields) {
      if (f.kind !== 'scalar') continue;
      const column = f.dbName ?? f.name;
      expectedColumns.add(column);
      const c = actual.get(column);
      assert.ok(c, `column ${table}.${column} is missing`);
      if (f.isList) assert.equal(c.data_type, 'ARRAY', `${table}.${column} should be an array`);
      else assert.ok(PG_TYPES[f.type]?.includes(c.data_type), `${table}.${column}: ${c.data_type} for ${f.type}`);
      // Prisma's list columns are nullable in SQL even when required in the model.
      if (!f.isList) assert.equal(c.is_nullable === 'NO', f.isRequired, `${table}.${column} nullability`);
    }
    assert.deepEqual([...actual.keys()].filter((c) => !expectedColumns.has(c)), [], `${table} has columns not in schema.prisma`);
  }
  assert.deepEqual([...byTable.keys()].filter((t) => !expectedTables.has(t)).sort(), [], 'tables not in schema.prisma');
});

test('every unique field, @@unique and primary key of schema.prisma exists as a unique index', async () => {
  const indexes = await s.deps.db.$queryRaw<{ table: string; columns: string[] }[]>`
    SELECT t.relname AS table, array_agg(a.attname::text ORDER BY k.ord) AS columns
    FROM pg_index i
    JOIN pg_class t ON t.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema()
    CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
    WHERE i.indisunique
    GROUP BY i.indexrelid, t.relname`;
  const have = new Set(indexes.map((i) => `${i.table}(${i.columns.join(',')})`));
  const expected: string[] = [];
  for (const [model, def] of Object.entries(datamodel)) {
    const table = def.dbName ?? model;
    const col = (name: string) => def.fields.find((f) => f.name === name)?.dbName ?? name;
    for (const f of def.fields) if (f.isUnique || f.isId) expected.push(`${table}(${col(f.name)})`);
    for (const u of def.uniqueIndexes) expected.push(`${table}(${u.map(col).join(',')})`);
    if (def.primaryKey) expected.push(`${table}(${def.primaryKey.map(col).join(',')})`);
  }
  assert.ok(expected.length > 10);
  for (const e of expected) assert.ok(have.has(e), `unique index ${e} is missing (have: ${[...have].join(' ')})`);
});

test('every relation to Account cascades on delete', async () => {
  const rules = await s.deps.db.$queryRaw<{ table_name: string; delete_rule: string }[]>`
    SELECT tc.table_name, rc.delete_rule
    FROM information_schema.table_constraints tc
    JOIN information_schema.referential_constraints rc ON rc.constraint_name = tc.constraint_name
    WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = current_schema()`;
  assert.ok(rules.length >= 10, JSON.stringify(rules));
  for (const r of rules) assert.equal(r.delete_rule, 'CASCADE', `${r.table_name}`);
});

test('the tables a hot path updates in place leave room on their pages for heap-only updates', async () => {
  const rows = await s.deps.sql<{ relname: string; reloptions: string[] | null }>(
    `SELECT relname, reloptions FROM pg_class WHERE relname = ANY ($1) AND relnamespace = current_schema()::regnamespace ORDER BY relname`,
    [['accounts', 'sessions']],
  );
  assert.deepEqual(
    rows.map((r) => [r.relname, r.reloptions]),
    [
      ['accounts', ['fillfactor=90']],
      ['sessions', ['fillfactor=80']],
    ],
  );
});

test('_prisma_migrations holds one finished row per migration with the sha256 of its file', async () => {
  const files = readMigrations(MIGRATIONS_DIR);
  assert.ok(files.length >= 1);
  const rows = await s.deps.db.$queryRaw<
    { migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null; applied_steps_count: number; id: string }[]
  >`SELECT id, migration_name, checksum, finished_at, rolled_back_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`;
  assert.deepEqual(rows.map((r) => r.migration_name), files.map((f) => f.name));
  for (const r of rows) {
    const sql = readFileSync(join(MIGRATIONS_DIR, r.migration_name, 'migration.sql'));
    assert.equal(r.checksum, createHash('sha256').update(sql).digest('hex'), r.migration_name);
    assert.ok(r.finished_at instanceof Date, `${r.migration_name} finished_at`);
    assert.equal(r.rolled_back_at, null);
    assert.equal(r.applied_steps_count, 1);
    assert.match(r.id, /^[0-9a-f-]{36}$/);
  }
});

test('running the migrations again applies nothing and adds no rows (idempotent restart)', async () => {
  const before = await s.deps.db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM "_prisma_migrations"`;
  const applied = await applyMigrations(s.deps.database.url, MIGRATIONS_DIR);
  assert.deepEqual(applied, []);
  const after = await s.deps.db.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM "_prisma_migrations"`;
  assert.equal(after[0]!.n, before[0]!.n);
});

test('a second server on the same, already migrated database starts cleanly', needs(['DATABASE_URL'], 'a database two servers share'), async () => {
  const second = await startTestServer();
  try {
    assert.equal((await second.request('/healthz')).status, 200);
  } finally {
    await second.close();
  }
});
