// The embedded PostgreSQL (PGlite): a new data directory is created in a worker thread, and the
// database runs with a 16 MB buffer pool given on its command line, leaving initdb's
// postgresql.conf (time zone, locale, text search) as it wrote it.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../../src/infra/db/embedded.js';

test('a new embedded database: 16 MB of shared buffers, initdb settings kept, data kept across a reopen', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'embedded-test-'));
  try {
    const first = await startEmbeddedPostgres(dataDir);
    const client = new pg.Client({ connectionString: first.url });
    await client.connect();
    assert.equal((await client.query('SHOW shared_buffers')).rows[0].shared_buffers, '16MB');
    assert.equal((await client.query('SHOW timezone')).rows[0].TimeZone, 'UTC');
    await client.query('CREATE TABLE kept (v text)');
    await client.query("INSERT INTO kept VALUES ('still here')");
    await client.end();
    await first.close();
    const conf = readFileSync(join(dataDir, 'pglite', 'postgresql.conf'), 'utf8');
    assert.match(conf, /^timezone = UTC/m, "initdb's postgresql.conf is left as it wrote it");
    assert.match(conf, /^default_text_search_config = 'pg_catalog.english'/m);

    const again = await startEmbeddedPostgres(dataDir);
    const reopened = new pg.Client({ connectionString: again.url });
    await reopened.connect();
    assert.deepEqual((await reopened.query('SELECT v FROM kept')).rows, [{ v: 'still here' }]);
    assert.equal((await reopened.query('SHOW shared_buffers')).rows[0].shared_buffers, '16MB');
    await reopened.end();
    await again.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
