// The organization's audit log (API.md section 18): who did what, when, from which network,
// written in the transaction of the change it records, newest first, kept a year (the
// retention sweep purges older events), readable by admins and owners.
import type { DomainDeps } from '../context.js';
import type { DbHandle } from '../store.js';
import { invalidInput, PROBLEMS } from '../errors.js';
import { auditActor, type Actor } from './access.js';
import { auditSeqOf, insertAudit, selectAudit, type AuditRow } from './store.js';
import { isUuid } from '../ids.js';

export const AUDIT_TYPES = [
  'org_created', 'org_renamed', 'member_invited', 'invitation_revoked', 'member_joined', 'member_removed', 'member_left',
  'role_changed', 'tunnel_created', 'tunnel_deleted', 'tunnel_transferred', 'tunnel_access_changed', 'token_created',
  'token_revoked', 'webhook_changed',
] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];

export const AUDIT_PAGE_MAX = 100;
const AUDIT_PAGE_DEFAULT = 50;

/** Records an event in the caller's transaction (`tx`), by `actor`, at `at`. */
export async function recordAudit(
  tx: DbHandle,
  orgId: string,
  actor: Actor,
  type: AuditType,
  target: Record<string, unknown>,
  at: Date,
): Promise<void> {
  await insertAudit(tx, { orgId, type, target, at, ...(await auditActor(tx, actor)) });
}

export interface AuditEvent {
  id: string;
  type: string;
  actor: { accountId: string; email: string } | { tokenId: string } | null;
  target: Record<string, unknown>;
  at: Date;
  ip: string;
}

const eventOf = (r: AuditRow): AuditEvent => ({
  id: r.id,
  type: r.type,
  actor: r.actorId !== null ? { accountId: r.actorId, email: r.actorEmail ?? '' } : r.actorTokenId !== null ? { tokenId: r.actorTokenId } : null,
  target: (r.target ?? {}) as Record<string, unknown>,
  at: r.at,
  ip: r.ip,
});

/** A page of the log, newest first: `limit` (1–100, default 50) events before the event `before`. */
export async function listAudit(deps: Pick<DomainDeps, 'db'>, orgId: string, page: { limit?: unknown; before?: unknown }): Promise<{ events: AuditEvent[]; hasMore: boolean }> {
  const limit = page.limit === undefined || page.limit === null ? AUDIT_PAGE_DEFAULT : page.limit;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE_MAX) {
    throw invalidInput(PROBLEMS.invalidOrg, 'limit', `The page size is a whole number from 1 to ${AUDIT_PAGE_MAX}.`);
  }
  let beforeSeq: bigint | null = null;
  if (page.before !== undefined && page.before !== null) {
    const seq = typeof page.before === 'string' && isUuid(page.before) ? await auditSeqOf(deps.db, orgId, page.before) : null;
    if (seq === null) throw invalidInput(PROBLEMS.invalidOrg, 'before', '`before` is the id of an event of this log.');
    beforeSeq = seq;
  }
  const rows = await selectAudit(deps.db, orgId, limit + 1, beforeSeq);
  return { events: rows.slice(0, limit).map(eventOf), hasMore: rows.length > limit };
}
