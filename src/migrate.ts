// Migrate-only entry: applies pending migrations to DATABASE_DIRECT_URL (or DATABASE_URL, or the
// embedded database) and exits. `npm run migrate` in a checkout; `node dist/migrate.js` in the
// built image (the Kubernetes migration Job).
import pino from 'pino';
import { ConfigError, loadConfig } from './infra/config.js';
import { openDatabase } from './infra/db/client.js';
import { MIGRATIONS_DIR } from './deps.js';

try {
  const config = loadConfig();
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    dataDir: config.dataDir,
    migrationsDir: MIGRATIONS_DIR,
    logger: pino({ level: 'info' }),
  });
  await db.close();
  process.stdout.write('migrations up to date\n');
} catch (err) {
  process.stderr.write(`${err instanceof ConfigError ? 'configuration error' : 'migration failed'}: ${(err as Error).message}\n`);
  process.exit(1);
}
