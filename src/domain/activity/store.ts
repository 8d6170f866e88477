// The security activity's queries: events appended in the transaction of their change, read a
// page at a time newest first (retention/retention.ts purges them past their 90 days).
import type { Prisma } from '../../generated/prisma/client.js';
import type { DbHandle, Sql } from '../store.js';

export interface EventRow {
  accountId: string;
  type: string;
  at: Date;
  ip: string;
  userAgent: string;
  detail: Prisma.InputJsonObject;
}

/**
 * The fan-out of one webhook event (API.md section 15) as CTEs `wt`, `we`, `wd` to append to a
 * statement's WITH list: the account's enabled endpoints subscribed to the type, the event row
 * (only when one is), and a pending delivery per endpoint, due at once. The arguments are SQL
 * expressions (parameters or columns of `source`, a CTE or table yielding one row).
 */
export function webhookFanOut(sql: { account: string; type: string; data: string; at: string; source: string }): string {
  return `wt AS (
      SELECT id FROM webhooks WHERE account_id = ${sql.account} AND enabled AND ${sql.type} = ANY(events)
    ), we AS (
      INSERT INTO webhook_events (id, account_id, type, data, created_at)
      SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), ${sql.account}, ${sql.type}, ${sql.data}, ${sql.at}
      FROM ${sql.source} WHERE EXISTS (SELECT 1 FROM wt)
      RETURNING id, created_at
    ), wd AS (
      INSERT INTO webhook_deliveries (id, webhook_id, event_id, status, next_attempt_at, created_at)
      SELECT gen_random_uuid()::text, wt.id, we.id, 'pending', we.created_at, we.created_at FROM wt, we
      RETURNING 1
    )`;
}

/** An activity event's webhook `data`: its id, type, time, masked network, browser and detail. */
export const SECURITY_EVENT_DATA = (v: string) =>
  `jsonb_build_object('id', ${v}.id, 'type', ${v}.type, 'at', to_char(${v}.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'ip', ${v}.ip, 'user_agent', ${v}.user_agent, 'detail', ${v}.detail)`;

const INSERT_SECURITY_EVENT = `
    WITH v AS (
      INSERT INTO security_events (account_id, type, at, ip, user_agent, detail)
      VALUES ($1, $2, $3, $4, $5, $6::jsonb)
      RETURNING id, account_id, type, at, ip, user_agent, detail
    ), ${webhookFanOut({ account: '$1', type: "'account.security'", data: SECURITY_EVENT_DATA('v'), at: '$3', source: 'v' })}
    SELECT count(*)::int AS queued FROM wd`;

/** Appends the event, and its `account.security` webhook event, in one statement; returns the deliveries queued. */
export async function insertSecurityEvent(db: DbHandle, row: EventRow): Promise<number> {
  const rows = await db.$queryRawUnsafe<{ queued: number }[]>(INSERT_SECURITY_EVENT, row.accountId, row.type, row.at, row.ip, row.userAgent, JSON.stringify(row.detail));
  return rows[0]?.queued ?? 0;
}

const INSERT_WEBHOOK_EVENT = `
    WITH ${webhookFanOut({ account: '$1', type: '$2::text', data: '$3::jsonb', at: '$4::timestamptz', source: '(SELECT 1) AS one' })}
    SELECT count(*)::int AS queued FROM wd`;

/** One webhook event for the account's endpoints subscribed to `type`; returns the deliveries queued. */
export async function insertWebhookEvent(db: DbHandle, accountId: string, type: string, data: object, at: Date): Promise<number> {
  const rows = await db.$queryRawUnsafe<{ queued: number }[]>(INSERT_WEBHOOK_EVENT, accountId, type, JSON.stringify(data), at);
  return rows[0]?.queued ?? 0;
}

export interface StoredEvent {
  /** The event's position, as decimal text (a bigint column). */
  seq: string;
  id: string;
  type: string;
  at: Date;
  ip: string;
  userAgent: string;
  detail: unknown;
}

/**
 * Up to `take` events of the account, newest first, strictly older than position `before`:
 * straight on node-postgres, by the (account_id, seq DESC) index.
 */
export function selectSecurityEvents(sql: Sql, accountId: string, take: number, before: bigint | null): Promise<StoredEvent[]> {
  return sql<StoredEvent>(
    // Ordered by the column, not by the text it is read as ("10" sorts before "9").
    `SELECT e.seq::text AS seq, e.id, e.type, e.at, e.ip, e.user_agent AS "userAgent", e.detail FROM security_events e
     WHERE e.account_id = $1 AND ($2::bigint IS NULL OR e.seq < $2::bigint) ORDER BY e.seq DESC LIMIT $3`,
    [accountId, before === null ? null : before.toString(), take],
  );
}
