// The hot statements (`sql`) run as named prepared statements, parsed and planned once per
// connection, unless a transaction pooler is in between; then they stay unnamed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pino from 'pino';
import { openDatabase, type Database } from '../../../src/infra/db/client.js';
import { needs } from '../../support/backends.js';

const MIGRATIONS = join(import.meta.dirname, '..', '..', '..', 'migrations');
const dataDir = mkdtempSync(join(tmpdir(), 'prepared-test-'));
const open = (preparedStatements: boolean) =>
  openDatabase({
    databaseUrl: process.env.DATABASE_URL ?? null,
    dataDir,
    migrationsDir: MIGRATIONS,
    logger: pino({ level: 'silent' }),
    poolSize: 1,
    preparedStatements,
  });

// One connection (pg_prepared_statements shows that connection's), one mode at a time.
after(() => rmSync(dataDir, { recursive: true, force: true }));

const PROBE = 'SELECT $1::int + 1 AS n /* prepared probe */';
const preparedProbes = (db: Database) =>
  db.sql<{ name: string; calls: string }>(`SELECT name, statement FROM pg_prepared_statements WHERE statement = $1`, [PROBE]);

test('with preparedStatements each text is one named statement, reused with new values', async () => {
  const named = await open(true);
  try {
    assert.deepEqual(await named.sql(PROBE, [1]), [{ n: 2 }]);
  assert.deepEqual(await named.sql(PROBE, [41]), [{ n: 42 }]);
  const rows = await preparedProbes(named);
  assert.equal(rows.length, 1, 'one statement for the text, however often it runs');
  assert.match(rows[0]!.name, /^s[\w-]{22}$/);
  assert.deepEqual(await named.sql('SELECT $1::text AS v', [new Date('2026-11-28T00:00:00Z')]), [{ v: '2026-11-28T00:00:00.000Z' }]);
  } finally {
    await named.close();
  }
});

test('without it (behind a transaction pooler) nothing is prepared', async () => {
  const unnamed = await open(false);
  try {
    assert.deepEqual(await unnamed.sql(PROBE, [2]), [{ n: 3 }]);
    assert.deepEqual(await preparedProbes(unnamed), []);
  } finally {
    await unnamed.close();
  }
});

test('an idle connection outlives a lull: same backend, its statements still prepared', needs(['DATABASE_URL'], 'the embedded database has one session whatever the pool does'), async () => {
  const db = await open(true);
  try {
    const [first] = await db.sql<{ pid: number }>('SELECT pg_backend_pid() AS pid', []);
    await db.sql(PROBE, [1]);
    // node-postgres's own default closes a connection idle for 10 s.
    await new Promise((r) => setTimeout(r, 11_000));
    const [later] = await db.sql<{ pid: number }>('SELECT pg_backend_pid() AS pid', []);
    assert.equal(later!.pid, first!.pid, 'the same backend serves after 11 s idle');
    assert.equal((await preparedProbes(db)).length, 1);
  } finally {
    await db.close();
  }
});

test('a new connection after the pool let the last one go runs the same named statements', async () => {
  // On the embedded database the new connection joins the one session the last one left, with
  // its named statements still prepared: without dropping them first, preparing again fails.
  const db = await openDatabase({
    databaseUrl: process.env.DATABASE_URL ?? null,
    dataDir,
    migrationsDir: MIGRATIONS,
    logger: pino({ level: 'silent' }),
    poolSize: 1,
    preparedStatements: true,
    idleConnectionMs: 50,
  });
  try {
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await db.sql(PROBE, [i]), [{ n: i + 1 }]);
      assert.deepEqual(await db.sql('SELECT $1::text AS v', [`round ${i}`]), [{ v: `round ${i}` }]);
      assert.equal((await preparedProbes(db)).length, 1);
      await new Promise((r) => setTimeout(r, 200)); // the pool closes the idle connection
    }
  } finally {
    await db.close();
  }
});

test('instants read back as the same Date: fractions, timestamp columns, and a session in another TimeZone', async () => {
  const db = await open(true);
  try {
    const read = () =>
      db.sql<{ micro: Date; whole: Date; plain: Date; bc: Date }>(
        `SELECT '2026-11-28 03:10:54.123456+00'::timestamptz AS micro, '2024-02-29 23:59:59+00'::timestamptz AS whole,
                '2026-11-28 03:10:54.5'::timestamp AS plain, '0044-03-15 12:00:00+00 BC'::timestamptz AS bc`,
        [],
      );
    const expect = (rows: Awaited<ReturnType<typeof read>>) => {
      assert.equal(rows[0]!.micro.toISOString(), '2026-11-28T03:10:54.123Z');
      assert.equal(rows[0]!.whole.toISOString(), '2024-02-29T23:59:59.000Z');
      assert.equal(rows[0]!.plain.toISOString(), '2026-11-28T03:10:54.500Z');
      assert.equal(rows[0]!.bc.getUTCFullYear(), -43);
    };
    expect(await read());
    // One connection (poolSize 1): the general parser takes the zone PostgreSQL prints.
    await db.sql(`SELECT set_config('TimeZone', 'Asia/Kolkata', false)`, []);
    const rows = await read();
    expect(rows);
  } finally {
    await db.close();
  }
});
