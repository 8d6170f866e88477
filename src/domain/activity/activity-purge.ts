// Keeps the security activity for 90 days. Every instance ticks; the delete runs under a
// transaction-level advisory lock, so one instance at a time does it (safe behind PgBouncer's
// transaction pooling, since the lock ends with the transaction).
import type { DomainDeps } from '../context.js';

export const ACTIVITY_RETENTION_MS = 90 * 24 * 3600 * 1000;
export const ACTIVITY_PURGE_INTERVAL_MS = 3600 * 1000;
/** Arbitrary, distinct from the migration runner's lock. */
const PURGE_LOCK_ID = 730_118_010;

/** Deletes events older than the retention; returns how many, or null when another instance held the lock. */
export async function purgeSecurityEvents(deps: Pick<DomainDeps, 'db' | 'clock'>): Promise<number | null> {
  const cutoff = new Date(deps.clock().getTime() - ACTIVITY_RETENTION_MS);
  return deps.db.$transaction(async (tx) => {
    const [lock] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(${PURGE_LOCK_ID}) AS locked`;
    if (!lock?.locked) return null;
    const { count } = await tx.securityEvent.deleteMany({ where: { at: { lt: cutoff } } });
    return count;
  });
}

/** Starts the hourly purge (and one shortly after start); returns the function that stops it. */
export function startActivityPurge(deps: Pick<DomainDeps, 'db' | 'clock' | 'logger'>, intervalMs = ACTIVITY_PURGE_INTERVAL_MS): () => Promise<void> {
  let running: Promise<void> | null = null;
  const run = () => {
    if (running) return;
    running = purgeSecurityEvents(deps)
      .then((count) => {
        if (count) deps.logger.info({ count }, 'security events past retention purged');
      })
      .catch((err: unknown) => deps.logger.error({ err: (err as Error).message }, 'security event purge failed'))
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
