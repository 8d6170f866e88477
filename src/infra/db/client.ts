// The database: real PostgreSQL when DATABASE_URL is set, embedded PGlite otherwise. Either way
// Prisma talks to it through @prisma/adapter-pg, so there is one code path.
import { PrismaPg } from '@prisma/adapter-pg';
import type { Logger } from 'pino';
import { PrismaClient } from '../../generated/prisma/client.js';
import { applyMigrations } from './migrate.js';

export type Db = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  url: string;
  embedded: boolean;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | null;
  /**
   * Where migrations run when databaseUrl is a transaction pooler (PgBouncer): the migration
   * runner holds a session-level advisory lock, which a pooler would hand to other clients.
   */
  directUrl?: string | null;
  dataDir: string;
  migrationsDir: string;
  logger: Logger;
  /** Pool size (real PostgreSQL only: the embedded database always gets exactly one connection). */
  poolSize?: number;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  // Imported only when used: PGlite's WebAssembly costs memory a PostgreSQL deployment never needs.
  const embedded = opts.databaseUrl ? null : await (await import('./embedded.js')).startEmbeddedPostgres(opts.dataDir);
  const url = opts.databaseUrl ?? embedded!.url;
  try {
    const applied = await applyMigrations(opts.directUrl ?? url, opts.migrationsDir);
    if (applied.length > 0) opts.logger.info({ migrations: applied }, 'applied database migrations');
  } catch (err) {
    await embedded?.close();
    throw err;
  }
  // Pooler-safe: nothing here keeps session state between transactions (no SET, no session
  // advisory lock, no LISTEN), and node-postgres sends unnamed statements (PrismaPg is given no
  // statementNameGenerator), which PgBouncer's transaction mode carries even before 1.21.
  const adapter = new PrismaPg({
    connectionString: url,
    // PGlite is one session: statements of several client connections interleave on it (a
    // portal of one is lost to another's) and no transaction would be isolated. One connection
    // serializes them, which is what a single embedded session can honestly offer.
    max: embedded ? 1 : (opts.poolSize ?? 10),
    connectionTimeoutMillis: 3000,
  });
  const prisma = new PrismaClient({ adapter });
  return {
    prisma,
    url,
    embedded: embedded !== null,
    async close() {
      await prisma.$disconnect();
      await embedded?.close();
    },
  };
}
