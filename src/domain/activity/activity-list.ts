// Reading the security activity: newest first, cursor paging that stays stable while new events
// arrive (the cursor is the position of the last event shown, and positions only grow).
import { badRequest, PROBLEMS } from '../errors.js';
import type { DomainDeps } from '../context.js';
import type { SecurityEventDetail, SecurityEventType } from './security-events.js';
import { selectSecurityEvents, type StoredEvent } from './store.js';

export interface SecurityEventView {
  id: string;
  type: SecurityEventType;
  at: Date;
  ip: string;
  userAgent: string;
  detail: SecurityEventDetail;
  /** Opaque: where the next page after this event starts. */
  readonly cursor: string;
}

export interface ActivityPage {
  events: SecurityEventView[];
  /** Null on the last page. */
  nextCursor: string | null;
}

export const ACTIVITY_LIMIT_DEFAULT = 50;
export const ACTIVITY_LIMIT_MAX = 100;

const CURSOR_PREFIX = 'se1:';

/** The cursor of the event at position `seq` (a bigint, or its decimal text). */
export function encodeCursor(seq: bigint | string): string {
  return Buffer.from(`${CURSOR_PREFIX}${seq.toString()}`).toString('base64url');
}

/** One event as listed; its cursor is made only when asked for (a page shows one: the last). */
class ListedEvent implements SecurityEventView {
  readonly id: string;
  readonly type: SecurityEventType;
  readonly at: Date;
  readonly ip: string;
  readonly userAgent: string;
  readonly detail: SecurityEventDetail;
  private readonly seq: string;

  constructor(row: StoredEvent) {
    this.id = row.id;
    this.type = row.type as SecurityEventType;
    this.at = row.at;
    this.ip = row.ip;
    this.userAgent = row.userAgent;
    this.detail = (row.detail ?? {}) as SecurityEventDetail;
    this.seq = row.seq;
  }

  get cursor(): string {
    return encodeCursor(this.seq);
  }
}

export function decodeCursor(cursor: string): bigint {
  const invalid = () => badRequest(PROBLEMS.invalidCursor, 'This cursor is not valid.');
  if (cursor.length === 0 || cursor.length > 64) throw invalid();
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(CURSOR_PREFIX)) throw invalid();
  const digits = text.slice(CURSOR_PREFIX.length);
  if (!/^[1-9][0-9]{0,18}$/.test(digits)) throw invalid();
  return BigInt(digits);
}

export function assertActivityLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > ACTIVITY_LIMIT_MAX) {
    throw badRequest(PROBLEMS.invalidCursor, `limit must be an integer from 1 to ${ACTIVITY_LIMIT_MAX}.`);
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
  const events: SecurityEventView[] = shown.map((r) => new ListedEvent(r));
  const last = events.at(-1);
  return { events, nextCursor: rows.length > limit && last ? last.cursor : null };
}
