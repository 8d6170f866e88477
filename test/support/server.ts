// Starts the real server (buildApp + listen on loopback) against the backend under test:
// real PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set, embedded PGlite and the
// memory cache when not. Mail goes to a TestSmtp in the process. useServer() is the per-file
// fixture; startTestServer() is for a test that needs a server of its own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { startWorkers } from '../../src/workers.js';
import { loadConfig } from '../../src/infra/config.js';
import { createDeps, type Deps } from '../../src/deps.js';
import type { Argon2Cost } from '../../src/domain/passwords/password.js';
import { takeEmbedded } from './embedded-pool.js';
import { lazyFixture, useFixture, type FixtureOptions } from './fixture.js';
import { request, type Reply, type RequestOptions } from './http.js';
import { checkAgainstContract, compileContract, type Contract } from './openapi-contract.js';
import { TestSmtp } from './smtp.js';

/** A running server as tests and helpers use it. */
export interface Server {
  readonly url: string;
  readonly deps: Deps;
  readonly app: BuiltApp;
  readonly smtp: TestSmtp;
  /** A mutable clock: tests move time instead of sleeping. */
  readonly clock: TestClock;
  request(path: string, opts?: RequestOptions): Promise<Reply>;
}

export interface TestServer extends Server {
  close(): Promise<void>;
}

export class TestClock {
  private offsetMs = 0;
  now = (): Date => new Date(Date.now() + this.offsetMs);
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  /** Share an SMTP server between several server instances. */
  smtp?: TestSmtp;
  /** The pino level (default: silent, or TEST_LOG_LEVEL). */
  logLevel?: string;
  /** Where the log lines go (default: stdout), e.g. to assert what an instance logged. */
  logStream?: pino.DestinationStream;
  /** Listen on this loopback port (0: any), e.g. to set BASE_URL/APP_URL to the server's own origin. */
  port?: number;
  /**
   * argon2id's cost (default TEST_ARGON2ID). OWASP_ARGON2ID for a test about the hash itself: its
   * stored parameters, the re-hash rule, or the time an unknown address burns.
   */
  passwordCost?: Argon2Cost;
}

/**
 * The in-process servers' argon2id cost: the same algorithm, code and re-hash rule as the server's
 * (OWASP_ARGON2ID), at 1 MiB and one pass: at the real cost, hashing the suite's sign-ups and
 * sign-ins was much of its CPU (docs/testing.md).
 */
export const TEST_ARGON2ID: Argon2Cost = { memoryCost: 1024, timeCost: 1 };

/** Every test instance seals with this key unless ENCRYPTION_KEY is set (a test value, no secret). */
export const TEST_ENCRYPTION_KEY = Buffer.alloc(32, 7).toString('base64');

/**
 * On a shared database the servers of a test file share the outbox, and any of their mail workers
 * may deliver any server's email: they share one mailbox then (for the life of the file's process;
 * mail is read by address, so nothing else changes).
 */
let sharedSmtp: Promise<TestSmtp> | null = null;

export async function startTestServer(opts: StartOptions = {}): Promise<TestServer> {
  const sharedDatabase = Boolean(opts.env && 'DATABASE_URL' in opts.env ? opts.env.DATABASE_URL : process.env.DATABASE_URL);
  const ownSmtp = !opts.smtp && !sharedDatabase;
  const smtp = opts.smtp ?? (ownSmtp ? await TestSmtp.start() : await (sharedSmtp ??= TestSmtp.start()));
  const dataDir = mkdtempSync(join(tmpdir(), 'tunnel-svc-test-'));
  const env: Record<string, string | undefined> = {
    NODE_ENV: 'test',
    DATABASE_URL: process.env.DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL,
    DATA_DIR: dataDir,
    SMTP_URL: smtp.url,
    // Instances that share a database must share the key that seals outbox bodies.
    ENCRYPTION_KEY: process.env.ENCRYPTION_KEY ?? TEST_ENCRYPTION_KEY,
    // The suite signs up hundreds of accounts from loopback; the limit's own test sets it low.
    SIGNUP_RATE_LIMIT: '1000000',
    // Never the internet: the breached-password tests point it at a local fake (fake-pwned.ts).
    PWNED_PASSWORDS_URL: 'off',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: opts.logLevel ?? process.env.TEST_LOG_LEVEL ?? 'silent',
    ...opts.env,
  };
  // The embedded database, initialized and migrated once per run (scripts/test.mjs): one kept
  // between this process's servers (embedded-pool.ts). A test that names its own DATA_DIR gets
  // the database in it, as `npm start` would.
  const template = process.env.TEST_PGLITE_TEMPLATE;
  const startEmbedded = template && !env.DATABASE_URL && env.DATA_DIR === dataDir ? () => takeEmbedded(template) : undefined;
  // BASE_URL defaults from PORT; the port is known only after listen, so tests use the API host
  // name `localhost` (the default BASE_URL host) and pass their own BASE_URL when they need one.
  const config = loadConfig(env as NodeJS.ProcessEnv);
  const clock = new TestClock();
  const deps = await createDeps(config, {
    clock: clock.now,
    logger: opts.logStream ? pino({ level: config.logLevel }, opts.logStream) : pino({ level: config.logLevel }),
    mailPollMs: 100,
    mailRetryBaseMs: 200,
    webhookPollMs: 200,
    passwordCost: opts.passwordCost ?? TEST_ARGON2ID,
    startEmbedded,
  });
  const app = await buildApp(deps);
  // The status refresher stays off: status tests drive its ticks themselves.
  const workers = startWorkers(deps, { statusRefresher: false });
  const address = await app.listen(opts.port ?? 0, '127.0.0.1');
  const url = address.replace('127.0.0.1', 'localhost');
  // Every answer from a REST path is checked against the server's own OpenAPI document.
  let contract: Promise<Contract> | null = null;
  const contractOf = () =>
    (contract ??= app.fastify.inject({ method: 'GET', url: '/openapi.json', headers: { host: 'localhost' } }).then((r) => compileContract(r.json())));
  return {
    url,
    deps,
    app,
    smtp,
    clock,
    async request(path, o) {
      const reply = await request(url, path, o);
      checkAgainstContract(await contractOf(), path, o ?? {}, reply);
      return reply;
    },
    async close() {
      await app.close();
      await workers.stop();
      await deps.close();
      if (ownSmtp) await smtp.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One server for the tests of the file (or describe block): started before them, closed after
 * them. Options given as a function are read at start, after the fixtures registered earlier
 * (fake providers, another server) have started.
 */
export function useServer(opts: StartOptions | (() => StartOptions) = {}, fixture: FixtureOptions = {}): Server {
  return lazyFixture(useFixture(() => startTestServer(typeof opts === 'function' ? opts() : opts), (s) => s.close(), fixture));
}

let counter = 0;
/** A unique email per call (tests share one database on the real backend). */
export function uniqueEmail(prefix = 'user'): string {
  counter++;
  return `${prefix}-${Date.now().toString(36)}-${process.pid}-${counter}@example.com`;
}
