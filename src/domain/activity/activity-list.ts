// Reading the security activity: newest first, cursor paging that stays stable while new events
// arrive (the cursor is the position of the last event shown, and positions only grow).
import { badRequest } from '../errors.js';
import type { DomainDeps } from '../context.js';
import type { SecurityEventDetail, SecurityEventType } from './security-events.js';
import { selectSecurityEvents } from './store.js';

export interface SecurityEventView {
  id: string;
  type: SecurityEventType;
  at: Date;
  ip: string;
  userAgent: string;
  detail: SecurityEventDetail;
  /** Opaque: where the next page after this event starts. */
  cursor: string;
}

export interface ActivityPage {
  events: SecurityEventView[];
  /** Null on the last page. */
  nextCursor: string | null;
}

export const ACTIVITY_LIMIT_DEFAULT = 50;
export const ACTIVITY_LIMIT_MAX = 100;

const CURSOR_PREFIX = 'se1:';

export function encodeCursor(seq: bigint): string {
  return Buffer.from(`${CURSOR_PREFIX}${seq.toString()}`).toString('base64url');
}

export function decodeCursor(cursor: string): bigint {
  const invalid = () => badRequest('This cursor is not valid.');
  if (cursor.length === 0 || cursor.length > 64) throw invalid();
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(CURSOR_PREFIX)) throw invalid();
  const digits = text.slice(CURSOR_PREFIX.length);
  if (!/^[1-9][0-9]{0,18}$/.test(digits)) throw invalid();
  return BigInt(digits);
}

export function assertActivityLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > ACTIVITY_LIMIT_MAX) {
    throw badRequest(`limit must be an integer from 1 to ${ACTIVITY_LIMIT_MAX}.`);
  }
}

/** One page of an account's events, newest first, strictly older than `before` when given. */
export async function listSecurityEvents(
  deps: Pick<DomainDeps, 'sql'>,
  accountId: string,
  page: { limit?: number; before?: string | null },
): Promise<ActivityPage> {
  const limit = page.limit ?? ACTIVITY_LIMIT_DEFAULT;
  assertActivityLimit(limit);
  const before = page.before ? decodeCursor(page.before) : null;
  const rows = await selectSecurityEvents(deps.sql, accountId, limit + 1, before);
  const shown = rows.slice(0, limit);
  const events = shown.map((r) => ({
    id: r.id,
    type: r.type as SecurityEventType,
    at: r.at,
    ip: r.ip,
    userAgent: r.userAgent,
    detail: (r.detail ?? {}) as SecurityEventDetail,
    cursor: encodeCursor(r.seq),
  }));
  const last = events.at(-1);
  return { events, nextCursor: rows.length > limit && last ? last.cursor : null };
}
