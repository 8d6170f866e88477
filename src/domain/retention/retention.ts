// Retention: what is past its time is deleted, in bounded batches through an index, by one
// instance at a time (a lease in the database, renewed as the batches go). Each batch is its own
// short statement, so no sweep holds locks on many rows or keeps a long transaction open, and a
// backlog (a first run on a large database) drains over several runs instead of one huge delete.
//
// Kept: security activity 90 days (API.md 10); webhook events 30 days (section 15); device sign-in
// requests an hour past their expiry (a late poll still hears expired_token). Deleted once
// expired: sessions, email tokens (a used one is kept until its link expires, so a replayed
// verification link still answers as it did), second-step challenges (a used one at once),
// pending SSO links, the authorization server's models, never-confirmed status subscriptions,
// organization invitations. An organization's audit log is kept a year (section 18).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Sql } from '../store.js';
import { deleteBatch, releaseLease, takeLease, type Sweep } from './store.js';

const DAY_MS = 24 * 3600 * 1000;
export const ACTIVITY_RETENTION_MS = 90 * DAY_MS;
/** How long webhook events and their delivery log are kept (API.md section 15). */
export const WEBHOOK_EVENT_RETENTION_MS = 30 * DAY_MS;
/** How long an organization's audit log is kept (API.md section 18). */
export const AUDIT_RETENTION_MS = 365 * DAY_MS;
/** How long an expired device request is kept, so a late poll hears expired_token, not invalid_grant. */
export const DEVICE_ROW_GRACE_MS = 3600 * 1000;
export const RETENTION_INTERVAL_MS = 3600 * 1000;
/** After a run that left rows behind (its time budget ran out), the next one comes this soon. */
export const BACKLOG_INTERVAL_MS = 60_000;
export const LEASE_NAME = 'retention';
const LEASE_MS = 60_000;
const RENEW_AFTER_MS = 20_000;

export interface RetentionOptions {
  /** Rows per batch (default 1000). */
  batch?: number;
  /** A run stops starting batches after this long (default 5 minutes); the rest waits for the next. */
  budgetMs?: number;
}

/** What a run reports: rows deleted, by kind. */
export interface Counts {
  events: number;
  sessions: number;
  emailTokens: number;
  /** Second-step challenges, expired or used. */
  challenges: number;
  pendingLinks: number;
  devices: number;
  oauthModels: number;
  webhookEvents: number;
  statusSubscribers: number;
  auditEvents: number;
  invitations: number;
}

interface Kind extends Sweep {
  /** Which count its rows add to. */
  counts: keyof Counts;
  /** The cutoff of this run: rows older than it go. */
  cutoff(now: number): Date;
}

const at = (offsetMs: number) => (now: number) => new Date(now - offsetMs);

/** Every sweep, each `where` served by an index (migrations 20261130000000_retention and before). */
export const SWEEPS: readonly Kind[] = [
  { name: 'events', counts: 'events', table: 'security_events', where: 'at < $1', cutoff: at(ACTIVITY_RETENTION_MS) },
  { name: 'sessions', counts: 'sessions', table: 'sessions', where: 'expires_at <= $1', cutoff: at(0) },
  { name: 'emailTokens', counts: 'emailTokens', table: 'email_tokens', where: 'expires_at <= $1', cutoff: at(0) },
  { name: 'challenges', counts: 'challenges', table: 'mfa_challenges', where: 'expires_at <= $1', cutoff: at(0) },
  { name: 'usedChallenges', counts: 'challenges', table: 'mfa_challenges', where: 'used_at IS NOT NULL AND used_at <= $1', cutoff: at(0) },
  { name: 'pendingLinks', counts: 'pendingLinks', table: 'pending_links', where: 'expires_at <= $1', cutoff: at(0) },
  { name: 'devices', counts: 'devices', table: 'device_authorizations', where: 'expires_at < $1', cutoff: at(DEVICE_ROW_GRACE_MS) },
  { name: 'oauthModels', counts: 'oauthModels', table: 'oauth_models', where: 'expires_at <= $1', cutoff: at(0) },
  // With their deliveries and attempts (foreign keys cascade, each through its own index).
  { name: 'webhookEvents', counts: 'webhookEvents', table: 'webhook_events', where: 'created_at < $1', cutoff: at(WEBHOOK_EVENT_RETENTION_MS) },
  { name: 'statusSubscribers', counts: 'statusSubscribers', table: 'status_subscribers', where: 'confirmed_at IS NULL AND confirm_expires_at < $1', cutoff: at(0) },
  { name: 'auditEvents', counts: 'auditEvents', table: 'org_audit_events', where: 'at < $1', cutoff: at(AUDIT_RETENTION_MS) },
  { name: 'invitations', counts: 'invitations', table: 'org_invitations', where: 'expires_at < $1', cutoff: at(0) },
];

export interface Purged extends Counts {
  /** Rows may be left: the run's time budget ran out, or its lease was lost. */
  more: boolean;
}

/**
 * Deletes what is past its time, batch by batch; says how much, or null when another instance
 * holds the lease.
 */
export async function purgeExpired(deps: { sql: Sql; clock: () => Date }, opts: RetentionOptions = {}): Promise<Purged | null> {
  const batch = opts.batch ?? 1000;
  const budgetMs = opts.budgetMs ?? 300_000;
  const holder = randomUUID();
  if (!(await takeLease(deps.sql, LEASE_NAME, holder, LEASE_MS))) return null;
  const started = performance.now();
  let renewed = started;
  const purged: Purged = {
    events: 0, sessions: 0, emailTokens: 0, challenges: 0, pendingLinks: 0, devices: 0, oauthModels: 0, webhookEvents: 0, statusSubscribers: 0, auditEvents: 0, invitations: 0,
    more: false,
  };
  const now = deps.clock().getTime();
  try {
    for (const sweep of SWEEPS) {
      const cutoff = sweep.cutoff(now);
      for (;;) {
        if (performance.now() - started > budgetMs) {
          purged.more = true;
          return purged;
        }
        if (performance.now() - renewed > RENEW_AFTER_MS) {
          if (!(await takeLease(deps.sql, LEASE_NAME, holder, LEASE_MS))) {
            purged.more = true;
            return purged;
          }
          renewed = performance.now();
        }
        const n = await deleteBatch(deps.sql, sweep, cutoff, batch);
        purged[sweep.counts] += n;
        if (n < batch) break;
      }
    }
    return purged;
  } finally {
    await releaseLease(deps.sql, LEASE_NAME, holder).catch(() => undefined);
  }
}

/**
 * Starts the hourly retention run (and one shortly after start; again within a minute while a
 * backlog is left); returns the function that stops it.
 */
export function startRetention(
  deps: { sql: Sql; clock: () => Date; logger: Logger },
  intervalMs = RETENTION_INTERVAL_MS,
): () => Promise<void> {
  let running: Promise<void> | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(run, ms);
    timer.unref();
  };
  const run = () => {
    running = purgeExpired(deps)
      .then((purged) => {
        if (purged === null) return schedule(intervalMs);
        const { more, ...counts } = purged;
        if (Object.values(counts).some((n) => n > 0)) deps.logger.info({ ...counts, more }, 'expired rows purged');
        schedule(more ? Math.min(intervalMs, BACKLOG_INTERVAL_MS) : intervalMs);
      })
      .catch((err: unknown) => {
        deps.logger.error({ err: (err as Error).message }, 'retention purge failed');
        schedule(intervalMs);
      })
      .finally(() => {
        running = null;
      });
  };
  schedule(Math.min(intervalMs, 60_000));
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}
