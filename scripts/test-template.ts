// The embedded database every test server copies (scripts/test.mjs): PGlite initialized and
// migrated once per run, instead of once per test file (initdb and the migrations were most of a
// small file's time). Usage: tsx scripts/test-template.ts <data dir>; it writes <data dir>/pglite.
import { join } from 'node:path';
import pino from 'pino';
import { openDatabase } from '../src/infra/db/client.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: test-template.ts <data dir>');
const db = await openDatabase({ databaseUrl: null, dataDir, migrationsDir: join(import.meta.dirname, '..', 'migrations'), logger: pino({ level: 'silent' }) });
await db.close();
