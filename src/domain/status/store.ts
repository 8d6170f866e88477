// The status history's queries (the roll-up itself lives in the shared cache): one check per
// component added to its day and minute counters, old rows purged, the rows of the last 90 days
// and 24 hours read; the database's liveness for readiness; and incidents, their updates,
// maintenance and the failure streaks behind automatic incidents (API.md section 17).
import type { Prisma } from '../../generated/prisma/client.js';
import type { Db, Tx } from '../store.js';

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

// Incidents and maintenance (API.md section 17).

const INCIDENT = {
  id: true,
  title: true,
  impact: true,
  status: true,
  components: true,
  automatic: true,
  createdAt: true,
  resolvedAt: true,
  updates: { select: { status: true, message: true, at: true }, orderBy: [{ at: 'desc' as const }, { id: 'desc' as const }] },
} satisfies Prisma.StatusIncidentSelect;

export interface IncidentRow {
  id: string;
  title: string;
  impact: string;
  status: string;
  components: string[];
  automatic: boolean;
  createdAt: Date;
  resolvedAt: Date | null;
  updates: { status: string; message: string; at: Date }[];
}

export interface MaintenanceRow {
  id: string;
  title: string;
  components: string[];
  startsAt: Date;
  endsAt: Date;
  message: string;
}

const MAINTENANCE = { id: true, title: true, components: true, startsAt: true, endsAt: true, message: true } as const;

/** Work that must commit with the write (the notices to subscribers). */
export type InTransaction<T> = (tx: Tx, row: T) => Promise<void>;

/** A new incident with its first update, and `after`, in one transaction. */
export function insertIncident(
  db: Db,
  incident: { title: string; impact: string; status: string; components: string[]; message: string; at: Date },
  after: InTransaction<IncidentRow>,
): Promise<IncidentRow> {
  const { message, at, ...fields } = incident;
  return db.$transaction(async (tx) => {
    const row = await tx.statusIncident.create({
      data: { ...fields, createdAt: at, updatedAt: at, resolvedAt: fields.status === 'resolved' ? at : null, updates: { create: { status: fields.status, message, at } } },
      select: INCIDENT,
    });
    await after(tx, row);
    return row;
  });
}

/**
 * Adds an update to an open incident (one that resolves it closes it); null when there is no
 * such incident, 'resolved' when it was closed already. The incident row is updated first, under
 * its row lock, so two updates never both close it.
 */
export function insertIncidentUpdate(
  db: Db,
  id: string,
  update: { status: string; message: string; at: Date },
  after: InTransaction<IncidentRow>,
): Promise<IncidentRow | null | 'resolved'> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.statusIncident.updateMany({
      where: { id, resolvedAt: null },
      data: { status: update.status, updatedAt: update.at, ...(update.status === 'resolved' ? { resolvedAt: update.at } : {}) },
    });
    if (count === 0) return (await tx.statusIncident.findUnique({ where: { id }, select: { id: true } })) ? 'resolved' : null;
    await tx.statusIncidentUpdate.create({ data: { incidentId: id, ...update } });
    const row = await tx.statusIncident.findUniqueOrThrow({ where: { id }, select: INCIDENT });
    await after(tx, row);
    return row;
  });
}

/** Incidents created since `since`, newest first. */
export function selectIncidentsSince(db: Db, since: Date): Promise<IncidentRow[]> {
  return db.statusIncident.findMany({ where: { createdAt: { gte: since } }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: INCIDENT });
}

/** Open incidents (newest first) and maintenance not over by `now` starting before `until` (soonest first). */
export async function selectNotices(db: Db, now: Date, until: Date): Promise<{ incidents: IncidentRow[]; maintenances: MaintenanceRow[] }> {
  const [incidents, maintenances] = await Promise.all([
    db.statusIncident.findMany({ where: { resolvedAt: null }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: 20, select: INCIDENT }),
    db.statusMaintenance.findMany({ where: { endsAt: { gt: now }, startsAt: { lt: until } }, orderBy: [{ startsAt: 'asc' }, { id: 'asc' }], take: 20, select: MAINTENANCE }),
  ]);
  return { incidents, maintenances };
}

/** The newest incident updates (with their incident) and the newest maintenance, `limit` of each. */
export async function selectFeedRows(
  db: Db,
  limit: number,
): Promise<{
  updates: { id: string; status: string; message: string; at: Date; incident: { id: string; title: string; impact: string; components: string[] } }[];
  maintenances: (MaintenanceRow & { createdAt: Date })[];
}> {
  const [updates, maintenances] = await Promise.all([
    db.statusIncidentUpdate.findMany({
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
      take: limit,
      select: { id: true, status: true, message: true, at: true, incident: { select: { id: true, title: true, impact: true, components: true } } },
    }),
    db.statusMaintenance.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit, select: { ...MAINTENANCE, createdAt: true } }),
  ]);
  return { updates, maintenances };
}

export function insertMaintenance(db: Db, m: Omit<MaintenanceRow, 'id'> & { createdAt: Date }, after: InTransaction<MaintenanceRow>): Promise<MaintenanceRow> {
  return db.$transaction(async (tx) => {
    const row = await tx.statusMaintenance.create({ data: m, select: MAINTENANCE });
    await after(tx, row);
    return row;
  });
}

/** Deletes a maintenance; false when there was none. */
export async function deleteMaintenanceRow(db: Db, id: string): Promise<boolean> {
  const { count } = await db.statusMaintenance.deleteMany({ where: { id } });
  return count === 1;
}

/**
 * One refresh's outcome for the automatic incidents, in one transaction: each component's streak
 * of failed refreshes grows or resets; a component whose streak reaches `threshold` opens an
 * automatic incident unless one is open for it (the partial unique index decides, so two
 * instances never open two); a component that answers again resolves its open one (the update
 * that resolves it is written by whichever statement closed the row, once).
 */
export function recordStreaks(
  db: Db,
  checks: readonly { component: string; failed: boolean }[],
  at: Date,
  threshold: number,
  opening: (component: string) => { title: string; message: string },
  resolving: (component: string) => string,
  after: InTransaction<IncidentRow>,
): Promise<{ opened: string[]; resolved: string[] }> {
  return db.$transaction(async (tx) => {
    const names = checks.map((c) => c.component);
    const failed = checks.map((c) => (c.failed ? 1 : 0));
    const streaks = await tx.$queryRaw<{ component: string; failures: number }[]>`
      INSERT INTO status_component_streaks AS s (component, failures, updated_at)
      SELECT component, failed, ${at}::timestamptz FROM unnest(${names}::text[], ${failed}::int[]) AS t(component, failed)
      ON CONFLICT (component) DO UPDATE SET failures = CASE WHEN EXCLUDED.failures = 1 THEN s.failures + 1 ELSE 0 END, updated_at = EXCLUDED.updated_at
      RETURNING component, failures`;
    const opened: string[] = [];
    for (const { component } of streaks.filter((s) => s.failures >= threshold)) {
      const { title, message } = opening(component);
      const rows = await tx.$queryRaw<{ id: string }[]>`
        INSERT INTO status_incidents (id, title, impact, status, components, automatic, automatic_component, created_at, updated_at)
        VALUES (gen_random_uuid()::text, ${title}, 'major', 'investigating', ARRAY[${component}]::text[], true, ${component}, ${at}, ${at})
        ON CONFLICT (automatic_component) WHERE resolved_at IS NULL DO NOTHING
        RETURNING id`;
      for (const { id } of rows) {
        await tx.statusIncidentUpdate.create({ data: { incidentId: id, status: 'investigating', message, at } });
        await after(tx, await tx.statusIncident.findUniqueOrThrow({ where: { id }, select: INCIDENT }));
        opened.push(component);
      }
    }
    const up = checks.filter((c) => !c.failed).map((c) => c.component);
    const closed =
      up.length === 0
        ? []
        : await tx.$queryRaw<{ id: string; component: string }[]>`
            UPDATE status_incidents SET status = 'resolved', resolved_at = ${at}, updated_at = ${at}
            WHERE automatic_component = ANY(${up}::text[]) AND resolved_at IS NULL
            RETURNING id, automatic_component AS component`;
    for (const { id, component } of closed) {
      await tx.statusIncidentUpdate.create({ data: { incidentId: id, status: 'resolved', message: resolving(component), at } });
      await after(tx, await tx.statusIncident.findUniqueOrThrow({ where: { id }, select: INCIDENT }));
    }
    return { opened, resolved: closed.map((c) => c.component) };
  });
}

// Subscriptions (API.md section 17).

/**
 * Asks for a subscription: a new row, or a new confirmation token on a row not yet confirmed.
 * Returns false (and changes nothing) when the address is confirmed already.
 */
export async function upsertPendingSubscriber(
  tx: Tx,
  s: { email: string; emailNormalized: string; confirmTokenHash: string; confirmExpiresAt: Date; unsubscribeTokenHash: string; unsubscribeToken: string; at: Date },
): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: string }[]>`
    INSERT INTO status_subscribers AS s (id, email, email_normalized, confirm_token_hash, confirm_expires_at, unsubscribe_token_hash, unsubscribe_token, created_at)
    VALUES (gen_random_uuid()::text, ${s.email}, ${s.emailNormalized}, ${s.confirmTokenHash}, ${s.confirmExpiresAt}, ${s.unsubscribeTokenHash}, ${s.unsubscribeToken}, ${s.at})
    ON CONFLICT (email_normalized) DO UPDATE SET confirm_token_hash = EXCLUDED.confirm_token_hash, confirm_expires_at = EXCLUDED.confirm_expires_at, email = EXCLUDED.email
    WHERE s.confirmed_at IS NULL
    RETURNING id`;
  return rows.length === 1;
}

/** Confirms the subscription whose live confirmation token hashes to `hash` (once); false otherwise. */
export async function confirmSubscriber(db: Db, hash: string, now: Date): Promise<boolean> {
  const { count } = await db.statusSubscriber.updateMany({
    where: { confirmTokenHash: hash, confirmExpiresAt: { gt: now } },
    data: { confirmedAt: now, confirmTokenHash: null, confirmExpiresAt: null },
  });
  return count === 1;
}

/** Removes the subscription whose unsubscribe token hashes to `hash`; false when there is none. */
export async function deleteSubscriber(db: Db, hash: string): Promise<boolean> {
  const { count } = await db.statusSubscriber.deleteMany({ where: { unsubscribeTokenHash: hash } });
  return count === 1;
}

/** Confirmed subscribers with their sealed unsubscribe tokens, in the caller's transaction. */
export function selectConfirmedSubscribers(tx: Tx): Promise<{ email: string; unsubscribeToken: string }[]> {
  return tx.statusSubscriber.findMany({ where: { confirmedAt: { not: null } }, select: { email: true, unsubscribeToken: true }, orderBy: { createdAt: 'asc' } });
}
