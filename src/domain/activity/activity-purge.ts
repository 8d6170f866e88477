// Keeps the security activity for 90 days, and drops spent second-step challenges (expired or
// used: a sign-in that never came back for its second step leaves one behind, which otherwise
// went only when the account next signed in), and device sign-in requests an hour after they
// expired (until then a late poll still hears expired_token), webhook events after 30 days, and
// status subscriptions never confirmed once their link has expired. Every
// instance ticks; the deletes run under a
// transaction-level advisory lock, so one instance at a time does them (safe behind PgBouncer's
// transaction pooling, since the lock ends with the transaction).
import type { DomainDeps } from '../context.js';
import { purgeOldRows } from './store.js';

export const ACTIVITY_RETENTION_MS = 90 * 24 * 3600 * 1000;
export const ACTIVITY_PURGE_INTERVAL_MS = 3600 * 1000;
/** Arbitrary, distinct from the migration runner's lock. */
const PURGE_LOCK_ID = 730_118_010;

export interface Purged {
  /** Security events past the retention. */
  events: number;
  /** Second-step challenges expired or used. */
  challenges: number;
  /** Device authorization requests an hour past their expiry. */
  devices: number;
  /** Expired models of the authorization server (codes, refresh tokens, interactions, unused clients). */
  oauthModels: number;
  /** Webhook events (with their deliveries and attempts) past their 30 days. */
  webhookEvents: number;
  /** Status subscriptions never confirmed, their link expired. */
  statusSubscribers: number;
}

/** How long webhook events and their delivery log are kept (API.md section 15). */
export const WEBHOOK_EVENT_RETENTION_MS = 30 * 24 * 3600 * 1000;

/** How long an expired device request is kept, so a late poll hears expired_token, not invalid_grant. */
export const DEVICE_ROW_GRACE_MS = 3600 * 1000;

/** Deletes what is past its time; says how much, or null when another instance held the lock. */
export async function purgeExpired(deps: Pick<DomainDeps, 'db' | 'clock'>): Promise<Purged | null> {
  const now = deps.clock();
  const cutoff = new Date(now.getTime() - ACTIVITY_RETENTION_MS);
  return purgeOldRows(deps.db, PURGE_LOCK_ID, cutoff, now, new Date(now.getTime() - DEVICE_ROW_GRACE_MS), new Date(now.getTime() - WEBHOOK_EVENT_RETENTION_MS));
}

/** Starts the hourly purge (and one shortly after start); returns the function that stops it. */
export function startActivityPurge(deps: Pick<DomainDeps, 'db' | 'clock' | 'logger'>, intervalMs = ACTIVITY_PURGE_INTERVAL_MS): () => Promise<void> {
  let running: Promise<void> | null = null;
  const run = () => {
    if (running) return;
    running = purgeExpired(deps)
      .then((purged) => {
        if (purged && Object.values(purged).some((n) => n > 0)) deps.logger.info(purged, 'expired security events, challenges and device requests purged');
      })
      .catch((err: unknown) => deps.logger.error({ err: (err as Error).message }, 'purge of expired security events and challenges failed'))
      .finally(() => {
        running = null;
      });
  };
  const first = setTimeout(run, Math.min(intervalMs, 60_000));
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
