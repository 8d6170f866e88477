// Creates the infrastructure once (database, cache, mail, metrics) and the domain's view of it.
// Tests call createDeps with their own clock, logger or config; main.ts with the environment's.
import { fileURLToPath } from 'node:url';
import pino, { type Logger } from 'pino';
import type { DomainDeps } from './domain/context.js';
import { systemClock } from './domain/clock.js';
import { wireAccountView } from './domain/accounts/account-view.js';
import { wireIntrospections } from './domain/oauth/introspection-cache.js';
import { SessionTouches } from './domain/sessions/touches.js';
import { EXPIRY_STEP_MS, SESSION_ABSOLUTE_LIFETIME_MS } from './domain/sessions/session.js';
import { BackgroundWork } from './infra/background.js';
import type { ProviderName } from './domain/sso/identity.js';
import { createProviders, type SsoProvider } from './domain/sso/providers.js';
import type { Cache } from './infra/cache/cache.js';
import { MemoryCache } from './infra/cache/memory.js';
import { RedisCache } from './infra/cache/redis.js';
import type { Config } from './infra/config.js';
import { type Database, type DatabaseOptions, openDatabase } from './infra/db/client.js';
import { DomainEvents } from './domain/events.js';
import { fileTransport, smtpTransport } from './infra/mail/transport.js';
import { MailWorker } from './infra/mail/worker.js';
import { createOutbox } from './infra/mail/outbox.js';
import { createCipher, loadOrCreateKeyFile, type Cipher } from './infra/crypto/cipher.js';
import { createMetrics, type Metrics } from './infra/observability/metrics.js';
import { Counter } from 'prom-client';
import { createBreachedPasswordCheck } from './domain/passwords/breached-password.js';
import { PasswordHasher, type Argon2Cost } from './domain/passwords/password.js';
import { WebhookWorker } from './domain/webhooks/delivery.js';
import { wireWebhookMetrics } from './infra/observability/webhook-metrics.js';
import { oldestDueAge, oldestUndeliveredAge } from './domain/webhooks/store.js';
import type { PublicFetchOptions } from './infra/net/public-fetch.js';
import { OwnerTunnelLists } from './domain/tunnels/owner-lists.js';
import { closeInOrder } from './infra/close-in-order.js';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../migrations', import.meta.url));

export interface Deps extends DomainDeps {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  database: Database;
  mailWorker: MailWorker;
  /** Delivers webhook events (API.md section 15); every instance runs one. */
  webhookWorker: WebhookWorker;
  /** AES-256-GCM under ENCRYPTION_KEY (or the embedded default key). */
  cipher: Cipher;
  /** After-reply work; shutdown drains it. */
  background: BackgroundWork;
  /** The enabled SSO providers (arctic clients), built once. */
  providers: ReadonlyMap<ProviderName, SsoProvider>;
  /** Closes the connections; the background jobs (workers.ts) are stopped before. */
  close(): Promise<void>;
}

export interface DepsOptions {
  clock?: () => Date;
  logger?: Logger;
  /** Mail retry backoff base (tests shorten it). */
  mailRetryBaseMs?: number;
  mailPollMs?: number;
  webhookPollMs?: number;
  /** Tests: how webhook deliveries resolve names or trust a loopback receiver's certificate. */
  webhookFetch?: Pick<PublicFetchOptions, 'resolve' | 'ca'>;
  /** argon2id's cost; OWASP's minimum unless code says otherwise (never the environment). */
  passwordCost?: Argon2Cost;
  /** Tests: how the embedded database starts (one kept between test servers instead of a new one each). */
  startEmbedded?: DatabaseOptions['startEmbedded'];
}

export function createLogger(config: Config): Logger {
  return pino({
    level: config.logLevel,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'password', 'token', '*.password', '*.token'],
      censor: '[redacted]',
    },
  });
}

export async function createDeps(config: Config, opts: DepsOptions = {}): Promise<Deps> {
  const logger = opts.logger ?? createLogger(config);
  const clock = opts.clock ?? systemClock;
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    directUrl: config.databaseDirectUrl,
    preparedStatements: config.databasePreparedStatements,
    dataDir: config.dataDir,
    migrationsDir: MIGRATIONS_DIR,
    logger,
    startEmbedded: opts.startEmbedded,
  });
  let cache: Cache;
  try {
    cache = config.redis
      ? await RedisCache.connect(config.redis, { waitReplicas: config.redisWaitReplicas })
      : new MemoryCache();
  } catch (err) {
    await database.close();
    const variable = { single: 'REDIS_URL', cluster: 'REDIS_CLUSTER_URLS', sentinel: 'REDIS_SENTINEL_URLS' }[config.redis!.mode];
    throw new Error(`${variable}: cannot connect (${(err as Error).message})`, { cause: err });
  }
  const transport = config.smtpUrl ? smtpTransport(config.smtpUrl) : fileTransport(config.dataDir, logger);
  const cipher = createCipher(config.encryptionKey ?? loadOrCreateKeyFile(config.dataDir));
  const mailWorker = new MailWorker({
    sql: database.sql,
    cipher,
    clock,
    transport,
    from: config.mailFrom,
    logger,
    ...(opts.mailPollMs !== undefined ? { pollMs: opts.mailPollMs } : {}),
    ...(opts.mailRetryBaseMs !== undefined ? { retryBaseMs: opts.mailRetryBaseMs } : {}),
  });
  const events = new DomainEvents(logger);
  wireAccountView({ events, cache, sql: (text, values) => deps.sql(text, values) });
  wireIntrospections({ events, cache, db: database.prisma });
  const background = new BackgroundWork(logger);
  // Through the deps' own `sql` (a test's statement spy sees the batch).
  const touches = new SessionTouches({ sql: (text, values) => deps.sql(text, values), logger, absoluteLifetimeMs: SESSION_ABSOLUTE_LIFETIME_MS, expiryStepMs: EXPIRY_STEP_MS });
  const metrics = createMetrics();
  const webhookMetrics = wireWebhookMetrics(metrics.registry, {
    lagSeconds: () => oldestDueAge(database.prisma, clock()),
    oldestSeconds: () => oldestUndeliveredAge(database.prisma, clock()),
  });
  const outbox = createOutbox(cipher);
  const webhookWorker = new WebhookWorker({
    db: database.prisma,
    cipher,
    clock,
    logger,
    outbox,
    mailNotify: () => mailWorker.nudge(),
    mailContext: { serviceName: config.serviceName, appUrl: config.appUrl },
    retryScheduleMs: config.webhookRetryScheduleMs,
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivate,
    observe: webhookMetrics.observe,
    ...(opts.webhookFetch ? { fetchOptions: opts.webhookFetch } : {}),
    ...(opts.webhookPollMs !== undefined ? { pollMs: opts.webhookPollMs } : {}),
  });
  const breachCheckFailures = new Counter({
    name: 'breached_password_check_failures_total',
    help: 'Breached-password range checks that failed open, by reason (timeout, unreachable, bad_status, bad_body)',
    labelNames: ['reason'] as const,
    registers: [metrics.registry],
  });
  const breachedPasswords = createBreachedPasswordCheck({
    url: config.pwnedPasswordsUrl,
    logger,
    onFailOpen: (reason) => breachCheckFailures.inc({ reason }),
  });
  const deps: Deps = {
    config,
    logger,
    clock,
    db: database.prisma,
    sql: database.sql,
    cache,
    touches,
    database,
    metrics,
    breachedPasswords,
    passwords: new PasswordHasher(opts.passwordCost),
    tunnelLists: new OwnerTunnelLists(),
    events,
    providers: createProviders(config),
    mailContext: { serviceName: config.serviceName, appUrl: config.appUrl },
    mailNotify: () => mailWorker.nudge(),
    webhookNotify: () => webhookWorker.nudge(),
    mailWorker,
    webhookWorker,
    cipher,
    outbox,
    policy: { signupsPerNetworkPerHour: config.signupRateLimit, reauthWindowMs: config.reauthWindowMs, webhookAllowPrivate: config.webhookAllowPrivate },
    background,
    async close() {
      // After-reply work first, while the database and the cache it uses are still open; the
      // database last, and closed even when a step before it failed.
      const closed = await closeInOrder(
        [
          ['background work', () => background.drain()],
          ['session touches', () => touches.close()],
          ['mail transport', () => transport.close()],
          ['cache', () => cache.close()],
          ['database', () => database.close()],
        ],
        (step, err) => logger.error({ step, err: (err as Error).message }, 'closing failed'),
      );
      if (!closed) throw new Error('closing the dependencies failed (logged above)');
    },
  };
  return deps;
}
