// The database: real PostgreSQL when DATABASE_URL is set, embedded PGlite otherwise. Either way
// Prisma talks to it through @prisma/adapter-pg, so there is one code path.
import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { Logger } from 'pino';
import { PrismaClient, type Prisma } from '../../generated/prisma/client.js';
import { parseUtcText } from '../instant.js';
import type { EmbeddedPostgres } from './embedded.js';
import { applyMigrations } from './migrate.js';

export type Db = PrismaClient;

/** The client inside a transaction: what store functions run on when their caller opened one. */
export type Tx = Prisma.TransactionClient;

/** Where a store function that needs no transaction of its own runs: the client, or the caller's transaction. */
export type DbHandle = Db | Tx;

/**
 * One statement straight on node-postgres, for the few hot statements whose cost through
 * Prisma's raw path showed (a login's two, a card miss's one): no query plan, no result mapping,
 * a fraction of the allocation. Same pool and connections as Prisma, outside any transaction;
 * `$1`, `$2`… placeholders. Dates go in as UTC instants (as Prisma writes them) and
 * `timestamp` columns come out as UTC.
 */
export type Sql = <Row>(text: string, values: readonly unknown[]) => Promise<Row[]>;

const TIMESTAMP_OID = 1114;
const TIMESTAMPTZ_OID = 1184;
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (value: string) => Date;
/**
 * timestamptz as a session in UTC prints it (`2026-11-28 03:10:54.123+00`) and timestamp
 * (`2026-11-28 03:10:54.123`, read as UTC) by plain arithmetic (instant.ts, ADR 21) rather than
 * the generic parser's regular expression (a list of 100 sessions has 200 of them); any other
 * form (another TimeZone, BC, infinity) goes to the generic parser.
 */
const timestamptz = (value: string): Date => parseUtcText(value, true) ?? parseTimestamptz(value);
const timestamp = (value: string): Date => parseUtcText(value, false) ?? new Date(`${value.replace(' ', 'T')}Z`);
const typesUtc = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    format === 'binary'
      ? pg.types.getTypeParser(oid, 'binary')
      : oid === TIMESTAMP_OID
        ? timestamp
        : oid === TIMESTAMPTZ_OID
          ? timestamptz
          : pg.types.getTypeParser(oid, 'text')) as typeof pg.types.getTypeParser,
};

/**
 * Statements named once: every text `sql` runs is a constant of a store module (a few dozen), so
 * this stays small; past MAX_NAMED a text runs unnamed rather than grow each connection's set.
 */
const MAX_NAMED = 256;

/** A statement's name: its text's digest (one name per text on every connection). */
function namer(): (text: string) => string | undefined {
  const names = new Map<string, string>();
  return (text) => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_NAMED) {
      name = `s${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`;
      names.set(text, name);
    }
    return name;
  };
}

/**
 * `prepared`: each text is parsed and planned once per connection (a named statement) instead of
 * on every call. On a cold session check that was most of PostgreSQL's work (ADR 19).
 */
function sqlOn(pool: pg.Pool, prepared: boolean): Sql {
  const nameOf = prepared ? namer() : () => undefined;
  return async <Row>(text: string, values: readonly unknown[]) => {
    const params = values.map((v) => (v instanceof Date ? v.toISOString() : v));
    const result = await pool.query({ name: nameOf(text), text, values: params, types: typesUtc });
    return result.rows as Row[];
  };
}

/** How long the pool keeps an idle connection. */
const IDLE_CONNECTION_MS = 5 * 60_000;

export interface Database {
  prisma: PrismaClient;
  sql: Sql;
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
  /** The hot statements (`sql`) as named prepared statements; off behind a transaction pooler. */
  preparedStatements?: boolean;
  /** How long the pool keeps an idle connection (default 5 minutes). */
  idleConnectionMs?: number;
  /** Starts the embedded database (default: PGlite in `<dataDir>/pglite`); tests hand out one kept between servers. */
  startEmbedded?: (dataDir: string) => Promise<EmbeddedPostgres>;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  // Imported only when used: PGlite's WebAssembly costs memory a PostgreSQL deployment never needs.
  const startEmbedded = opts.startEmbedded ?? (async (dir: string) => (await import('./embedded.js')).startEmbeddedPostgres(dir));
  const embedded = opts.databaseUrl ? null : await startEmbedded(opts.dataDir);
  const url = opts.databaseUrl ?? embedded!.url;
  try {
    const applied = await applyMigrations(opts.directUrl ?? url, opts.migrationsDir);
    if (applied.length > 0) opts.logger.info({ migrations: applied }, 'applied database migrations');
  } catch (err) {
    await embedded?.close();
    throw err;
  }
  // Pooler-safe: nothing here keeps session state between transactions (no SET, no session
  // advisory lock, no LISTEN), and Prisma's statements are unnamed (PrismaPg is given no
  // statementNameGenerator), which PgBouncer's transaction mode carries even before 1.21; the hot
  // statements are named only when preparedStatements says no such pooler is in between.
  // One pool for Prisma and the hot statements (sql above).
  const pool = new pg.Pool({
    connectionString: url,
    // PGlite is one session: statements of several client connections interleave on it (a
    // portal of one is lost to another's) and no transaction would be isolated. One connection
    // serializes them, which is what a single embedded session can honestly offer.
    max: embedded ? 1 : (opts.poolSize ?? 10),
    connectionTimeoutMillis: 3000,
    // An idle connection stays 5 minutes (node-postgres closes it after 10 s by default): a lull
    // in traffic then does not cost the next requests a new backend each (a fork, authentication,
    // cold catalog caches, the named statements prepared again). Measured in bench:scale, whose
    // pauses between paths closed the pool: a cold session check's PostgreSQL CPU counted the
    // new backends' start-up. The pool never holds more than `max` either way.
    idleTimeoutMillis: opts.idleConnectionMs ?? IDLE_CONNECTION_MS,
    // The embedded database is one session that outlives the pool's connection: a new connection
    // (after an idle spell or a failure) would find the last one's named statements still there,
    // and preparing them again would fail ("already exists"). The pool holds one connection at a
    // time there, so a new one drops them before it is handed out (a failure fails the checkout).
    ...(embedded ? { onConnect: async (client: pg.ClientBase) => void (await client.query('DEALLOCATE ALL')) } : {}),
  });
  // An idle connection that fails (a restarted server, a dropped socket) is replaced on next use;
  // without a listener the pool's error event would end the process.
  pool.on('error', (err) => opts.logger.warn({ err: err.message }, 'idle database connection failed'));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    sql: sqlOn(pool, opts.preparedStatements ?? false),
    url,
    embedded: embedded !== null,
    async close() {
      await prisma.$disconnect();
      await pool.end();
      await embedded?.close();
    },
  };
}
