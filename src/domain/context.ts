// What every domain flow needs, passed explicitly (deps.ts builds it once), and who is asking.
import type { Logger } from 'pino';
import type { Background } from '../infra/background.js';
import type { Cache } from '../infra/cache/cache.js';
import type { Db, Sql } from './store.js';
import type { DomainEvents } from './events.js';
import type { Outbox } from '../infra/mail/outbox.js';
import type { MailContext } from './emails/messages.js';
import type { Cipher } from '../infra/crypto/cipher.js';
import type { SessionTouches } from './sessions/touches.js';
import type { OwnerTunnelLists } from './tunnels/owner-lists.js';
import type { PasswordHasher } from './passwords/password.js';

export interface DomainDeps {
  db: Db;
  /** The hot statements straight on node-postgres (infra/db/client.ts); everything else goes through db. */
  sql: Sql;
  cache: Cache;
  clock: () => Date;
  /** The cold session checks' touches, written behind the request (sessions/touches.ts). */
  touches: SessionTouches;
  mailContext: MailContext;
  /** Writes an email (sealed) in the caller's transaction. */
  outbox: Outbox;
  /** Wakes the mail worker once a transaction that enqueued mail has committed. */
  mailNotify: () => void;
  /** Wakes the webhook delivery worker once a transaction that queued deliveries has committed. */
  webhookNotify: () => void;
  events: DomainEvents;
  /** Operator-tunable limits. */
  policy: {
    signupsPerNetworkPerHour: number;
    /** How long a session stays recently authenticated (API.md section 7a). */
    reauthWindowMs: number;
    /** WEBHOOK_ALLOW_PRIVATE: webhook URLs may be http and private (API.md section 15; development, tests). */
    webhookAllowPrivate: boolean;
  };
  /** For work that runs after the reply (nobody else would hear of its failure). */
  logger: Logger;
  /** Runs work after the reply; shutdown waits for it (infra/background.ts). */
  background: Background;
  /** AES-256-GCM under ENCRYPTION_KEY: TOTP secrets at rest. */
  cipher: Cipher;
  /** argon2id at the server's cost (passwords/password.ts). */
  passwords: PasswordHasher;
  /** The Pwned Passwords range check (passwords/breached-password.ts); always false when off. */
  breachedPasswords: (password: string) => Promise<boolean>;
  /** This instance's copies of organizations' tunnel lists (tunnels/owner-lists.ts). */
  tunnelLists: OwnerTunnelLists;
}

/** Who is making the request, as the adapters see it. */
export interface ClientInfo {
  ip: string;
  userAgent: string;
}

/** A signed-in caller. */
export interface Viewer {
  accountId: string;
  sessionId: string;
  tokenHash: string;
  /**
   * When the session last proved a credential, as its cached entry says (the display of
   * `reauthenticated_until`), in epoch milliseconds; the guards of API.md section 7a ask the database.
   */
  authenticatedAt: number;
  /**
   * Null for a session (the account's full power). For a service token (API.md section 12) its
   * scopes; the adapters let it reach only what they name, and `sessionId` is then `token:<id>`,
   * which no session row has, so a session operation can never act on it.
   */
  scopes: readonly string[] | null;
}
