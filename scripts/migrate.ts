// `npm run migrate`: applies pending migrations to DATABASE_URL (or the embedded database) and exits.
import pino from 'pino';
import { loadConfig } from '../src/infra/config.js';
import { openDatabase } from '../src/infra/db/client.js';
import { MIGRATIONS_DIR } from '../src/deps.js';

const config = loadConfig();
const db = await openDatabase({
  databaseUrl: config.databaseUrl,
  dataDir: config.dataDir,
  migrationsDir: MIGRATIONS_DIR,
  logger: pino({ level: 'info' }),
});
await db.close();
process.stdout.write('migrations up to date\n');
