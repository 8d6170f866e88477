// The webhooks' queries (API.md section 15): endpoints (their secrets sealed), the delivery queue
// the workers claim with a lease, and the attempt log the console and the API show.
import type { Db, DbHandle, Tx } from '../store.js';

export interface WebhookRow {
  id: string;
  /** Its owner: a person's account, or an organization. */
  accountId: string;
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const LISTED = { id: true, accountId: true, url: true, events: true, description: true, enabled: true, disabledReason: true, failingSince: true, createdAt: true, updatedAt: true } as const;

/** Locks the account's row (creations queue on it), then counts its endpoints. */
export async function lockAndCountWebhooks(tx: Tx, accountId: string): Promise<number | null> {
  const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`;
  if (locked.length === 0) return null;
  return tx.webhook.count({ where: { accountId } });
}

export function insertWebhookRow(tx: Tx, row: { accountId: string; url: string; events: string[]; description: string; secret: string; now: Date }): Promise<WebhookRow> {
  const { now, ...data } = row;
  return tx.webhook.create({ data: { ...data, createdAt: now, updatedAt: now }, select: LISTED });
}

export function listWebhookRows(db: DbHandle, accountId: string): Promise<WebhookRow[]> {
  return db.webhook.findMany({ where: { accountId }, orderBy: { createdAt: 'asc' }, select: LISTED });
}

export function readWebhookRow(db: DbHandle, accountId: string, id: string): Promise<WebhookRow | null> {
  return db.webhook.findFirst({ where: { id, accountId }, select: LISTED });
}

export async function updateWebhookRow(
  tx: DbHandle,
  accountId: string,
  id: string,
  data: { url?: string; events?: string[]; description?: string; enabled?: boolean; disabledReason?: null; failingSince?: null; updatedAt: Date },
): Promise<WebhookRow | null> {
  const { count } = await tx.webhook.updateMany({ where: { id, accountId }, data });
  return count === 1 ? readWebhookRow(tx, accountId, id) : null;
}

export async function deleteWebhookRow(tx: Tx, accountId: string, id: string): Promise<WebhookRow | null> {
  const row = await readWebhookRow(tx, accountId, id);
  if (!row) return null;
  await tx.webhook.deleteMany({ where: { id, accountId } });
  return row;
}

/** Replaces the secret; the one it replaces keeps signing until `until`. */
export async function rotateSecretRow(db: DbHandle, accountId: string, id: string, sealed: string, until: Date, now: Date): Promise<boolean> {
  const rows = await db.$executeRaw`
    UPDATE webhooks SET previous_secret = secret, previous_secret_until = ${until}, secret = ${sealed}, updated_at = ${now}
    WHERE id = ${id} AND account_id = ${accountId}`;
  return rows === 1;
}

/** A `webhook.test` event with one delivery, to this endpoint only. */
export async function insertTestEvent(tx: Tx, accountId: string, webhookId: string, eventId: string, data: object, now: Date): Promise<void> {
  await tx.webhookEvent.create({ data: { id: eventId, accountId, type: 'webhook.test', data: data as never, createdAt: now } });
  await tx.webhookDelivery.create({ data: { id: crypto.randomUUID(), webhookId, eventId, status: 'pending', nextAttemptAt: now, createdAt: now } });
}

export interface AttemptView {
  id: string;
  deliveryId: string;
  eventId: string;
  type: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  at: Date;
  nextAttemptAt: Date | null;
}

/** The endpoint's attempts, newest first. */
export async function listAttempts(db: DbHandle, webhookId: string, take: number): Promise<AttemptView[]> {
  const rows = await db.webhookAttempt.findMany({
    where: { webhookId },
    orderBy: [{ at: 'desc' }, { attempt: 'desc' }],
    take,
    select: {
      id: true,
      deliveryId: true,
      attempt: true,
      statusCode: true,
      error: true,
      durationMs: true,
      at: true,
      nextAttemptAt: true,
      delivery: { select: { eventId: true, event: { select: { type: true } } } },
    },
  });
  return rows.map(({ delivery, ...a }) => ({ ...a, eventId: delivery.eventId, type: delivery.event.type }));
}

/**
 * Makes a delivery due now (a manual retry), found by its id or one of its attempts' ids: a
 * pending one only comes forward; a finished one gets one more attempt, without a schedule after it.
 */
export async function requeueDelivery(db: Db, webhookId: string, id: string, now: Date): Promise<boolean> {
  const rows = await db.$executeRaw`
    UPDATE webhook_deliveries SET
      manual = (status <> 'pending'),
      status = 'pending',
      next_attempt_at = ${now}
    WHERE webhook_id = ${webhookId}
      AND id = COALESCE((SELECT delivery_id FROM webhook_attempts WHERE id = ${id} AND webhook_id = ${webhookId}), ${id})`;
  return rows === 1;
}

// --- the workers (delivery.ts)

export interface ClaimedDelivery {
  id: string;
  webhookId: string;
  accountId: string;
  eventId: string;
  type: string;
  data: unknown;
  eventAt: Date;
  attempts: number;
  manual: boolean;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: Date | null;
  failingSince: Date | null;
}

/**
 * Claims up to `limit` due deliveries of enabled endpoints for `leaseMs`: nobody else attempts
 * them until the lease ends (a worker killed mid-delivery leaves them due again then). One
 * statement, no transaction held while the receiver answers.
 */
export function claimDue(db: Db, now: Date, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
  const until = new Date(now.getTime() + leaseMs);
  return db.$queryRaw<ClaimedDelivery[]>`
    WITH c AS (
      UPDATE webhook_deliveries d SET locked_until = ${until}
      WHERE d.id IN (
        SELECT d2.id FROM webhook_deliveries d2 JOIN webhooks w ON w.id = d2.webhook_id
        WHERE d2.status = 'pending' AND d2.next_attempt_at <= ${now}
          AND (d2.locked_until IS NULL OR d2.locked_until <= ${now}) AND w.enabled
        ORDER BY d2.next_attempt_at LIMIT ${limit}
        FOR UPDATE OF d2 SKIP LOCKED)
      RETURNING d.id, d.webhook_id, d.event_id, d.attempts, d.manual)
    SELECT c.id, c.webhook_id AS "webhookId", w.account_id AS "accountId", c.event_id AS "eventId", e.type, e.data,
      e.created_at AS "eventAt", c.attempts, c.manual, w.url, w.secret, w.previous_secret AS "previousSecret",
      w.previous_secret_until AS "previousSecretUntil", w.failing_since AS "failingSince"
    FROM c JOIN webhook_events e ON e.id = c.event_id JOIN webhooks w ON w.id = c.webhook_id`;
}

export interface AttemptResult {
  deliveryId: string;
  webhookId: string;
  /** 1-based. */
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  at: Date;
  /** Set: pending again at this time; null: finished with `status`. */
  nextAttemptAt: Date | null;
  status: 'pending' | 'succeeded' | 'failed';
}

/** Logs the attempt and moves the delivery on, only while the lease still holds (`leasedUntil`). */
export async function recordAttempt(db: Db, r: AttemptResult, leasedUntil: Date): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const moved = await tx.$executeRaw`
      UPDATE webhook_deliveries SET status = ${r.status}, attempts = ${r.attempt}, next_attempt_at = ${r.nextAttemptAt},
        locked_until = NULL, manual = false
      WHERE id = ${r.deliveryId} AND locked_until = ${leasedUntil}`;
    if (moved !== 1) return false;
    await tx.webhookAttempt.create({
      data: {
        id: crypto.randomUUID(),
        deliveryId: r.deliveryId,
        webhookId: r.webhookId,
        attempt: r.attempt,
        statusCode: r.statusCode,
        error: r.error,
        durationMs: r.durationMs,
        at: r.at,
        nextAttemptAt: r.nextAttemptAt,
      },
    });
    if (r.status === 'succeeded') {
      await tx.webhook.updateMany({ where: { id: r.webhookId, failingSince: { not: null } }, data: { failingSince: null } });
    } else {
      await tx.webhook.updateMany({ where: { id: r.webhookId, failingSince: null }, data: { failingSince: r.at } });
    }
    return true;
  });
}

/**
 * Disables an endpoint failing since before `cutoff`; when it did, its owner: a person's address,
 * or an organization (no address: `org` is its slug), else null.
 */
export async function disableFailingEndpoint(
  tx: Tx,
  webhookId: string,
  cutoff: Date,
  now: Date,
): Promise<{ email: string; url: string; accountId: string; org: string | null } | null> {
  const rows = await tx.$queryRaw<{ email: string; url: string; accountId: string; org: string | null }[]>`
    UPDATE webhooks w SET enabled = false, disabled_reason = 'failing', updated_at = ${now}
    FROM accounts a
    WHERE w.id = ${webhookId} AND a.id = w.account_id AND w.enabled AND w.failing_since <= ${cutoff}
    RETURNING a.email, w.url, a.id AS "accountId", CASE WHEN a.kind = 'org' THEN a.slug END AS org`;
  return rows[0] ?? null;
}

/** Seconds since the oldest due, undelivered delivery of an enabled endpoint became due (0: none). */
export async function oldestDueAge(db: Db, now: Date): Promise<number> {
  const rows = await db.$queryRaw<{ due: Date | null }[]>`
    SELECT min(d.next_attempt_at) AS due FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
    WHERE d.status = 'pending' AND d.next_attempt_at <= ${now} AND w.enabled`;
  const due = rows[0]?.due;
  return due ? Math.max(0, (now.getTime() - due.getTime()) / 1000) : 0;
}

/** Seconds since the oldest event still undelivered to an enabled endpoint was written (0: none). */
export async function oldestUndeliveredAge(db: Db, now: Date): Promise<number> {
  const rows = await db.$queryRaw<{ at: Date | null }[]>`
    SELECT min(d.created_at) AS at FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
    WHERE d.status = 'pending' AND w.enabled`;
  const at = rows[0]?.at;
  return at ? Math.max(0, (now.getTime() - at.getTime()) / 1000) : 0;
}
