// The status history's queries (the roll-up itself lives in the shared cache): one check per
// component added to its day and minute counters, old rows purged, the rows of the last 90 days
// and 24 hours read; and the database's liveness for readiness.
import type { Db } from '../store.js';

/** A component's checks and failures over some span. */
export interface Counts {
  component: string;
  checks: number;
  failures: number;
}

export interface DayRow extends Counts {
  day: Date;
}

/** Adds one check per component to its day and minute rows, in one statement. */
export async function addChecks(db: Db, day: Date, minute: Date, checks: { component: string; failed: boolean }[]): Promise<void> {
  const names = checks.map((c) => c.component);
  const failed = checks.map((c) => (c.failed ? 1 : 0));
  await db.$executeRaw`
    WITH c AS (SELECT * FROM unnest(${names}::text[], ${failed}::int[]) AS t(component, failed)),
    d AS (
      INSERT INTO status_history_days AS h (component, day, checks, failures)
      SELECT component, ${day}::timestamptz, 1, failed FROM c
      ON CONFLICT (component, day) DO UPDATE SET checks = h.checks + 1, failures = h.failures + EXCLUDED.failures
    )
    INSERT INTO status_history_minutes AS m (component, minute, checks, failures)
    SELECT component, ${minute}::timestamptz, 1, failed FROM c
    ON CONFLICT (component, minute) DO UPDATE SET checks = m.checks + 1, failures = m.failures + EXCLUDED.failures`;
}

export async function deleteHistoryBefore(db: Db, day: Date, minute: Date): Promise<{ days: number; minutes: number }> {
  const days = await db.statusHistoryDay.deleteMany({ where: { day: { lt: day } } });
  const minutes = await db.statusHistoryMinute.deleteMany({ where: { minute: { lt: minute } } });
  return { days: days.count, minutes: minutes.count };
}

/** Day rows from `fromDay`, and per component the minute rows' sums from `fromMinute`, up to `now`. */
export async function readHistoryRows(db: Db, fromDay: Date, fromMinute: Date, now: Date): Promise<{ days: DayRow[]; lastDay: Counts[] }> {
  const [days, lastDay] = await Promise.all([
    db.statusHistoryDay.findMany({ where: { day: { gte: fromDay, lte: now } } }),
    db.statusHistoryMinute.groupBy({ by: ['component'], where: { minute: { gte: fromMinute, lte: now } }, _sum: { checks: true, failures: true } }),
  ]);
  return { days, lastDay: lastDay.map((r) => ({ component: r.component, checks: r._sum.checks ?? 0, failures: r._sum.failures ?? 0 })) };
}

/** The database answers a trivial statement. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.$queryRawUnsafe('SELECT 1');
}
