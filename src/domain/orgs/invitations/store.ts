// The invitations' queries (org_invitations): a pending invitation has neither `accepted_at` nor
// `revoked_at` and has not expired; every change of one is a conditional update on "still
// pending", so two requests racing on one invitation change it once.
import type { DbHandle, Tx } from '../../store.js';
import type { OrgRole } from '../../membership/roles.js';

export interface InvitationRow {
  id: string;
  orgId: string;
  email: string;
  emailNormalized: string;
  role: OrgRole;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  /** The member who sent it (null: unknown). */
  invitedBy: string | null;
}

const ROW = { id: true, orgId: true, email: true, emailNormalized: true, role: true, createdAt: true, expiresAt: true, acceptedAt: true, revokedAt: true, invitedBy: true } as const;
const asRow = (r: Omit<InvitationRow, 'role'> & { role: string }): InvitationRow => ({ ...r, role: r.role as OrgRole });

const pending = (now: Date) => ({ acceptedAt: null, revokedAt: null, expiresAt: { gt: now } });

export async function insertInvitation(
  tx: Tx,
  input: { orgId: string; email: string; emailNormalized: string; role: OrgRole; tokenHash: string; invitedBy: string; createdAt: Date; expiresAt: Date },
): Promise<InvitationRow> {
  return asRow(await tx.orgInvitation.create({ data: input, select: ROW }));
}

/** The organization's pending invitations, newest first (at most `max`). */
export async function selectPending(db: DbHandle, orgId: string, now: Date, max: number): Promise<InvitationRow[]> {
  const rows = await db.orgInvitation.findMany({ where: { orgId, ...pending(now) }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: max, select: ROW });
  return rows.map(asRow);
}

/** How many are pending, and when the first of them expires (null when none is). */
export async function pendingCount(tx: DbHandle, orgId: string, now: Date): Promise<{ count: number; firstExpiry: Date | null }> {
  const agg = await tx.orgInvitation.aggregate({ where: { orgId, ...pending(now) }, _count: { _all: true }, _min: { expiresAt: true } });
  return { count: agg._count._all, firstExpiry: agg._min.expiresAt };
}

export async function findPendingById(db: DbHandle, orgId: string, id: string, now: Date): Promise<InvitationRow | null> {
  const row = await db.orgInvitation.findFirst({ where: { id, orgId, ...pending(now) }, select: ROW });
  return row ? asRow(row) : null;
}

/** The invitation a link's token names, whatever its state. */
export async function findByTokenHash(db: DbHandle, tokenHash: string): Promise<InvitationRow | null> {
  const row = await db.orgInvitation.findUnique({ where: { tokenHash }, select: ROW });
  return row ? asRow(row) : null;
}

/** Revokes the invitation if it is still pending; false when something else changed it first. */
export async function markRevoked(tx: Tx, id: string, now: Date): Promise<boolean> {
  const { count } = await tx.orgInvitation.updateMany({ where: { id, ...pending(now) }, data: { revokedAt: now } });
  return count === 1;
}

/** Revokes every pending invitation of the organization to this address (a new one replaces them); their ids. */
export async function revokePendingTo(tx: Tx, orgId: string, emailNormalized: string, now: Date): Promise<string[]> {
  const rows = await tx.orgInvitation.findMany({ where: { orgId, emailNormalized, ...pending(now) }, select: { id: true } });
  if (rows.length === 0) return [];
  await tx.orgInvitation.updateMany({ where: { id: { in: rows.map((r) => r.id) }, ...pending(now) }, data: { revokedAt: now } });
  return rows.map((r) => r.id);
}

/** Accepts the invitation if it is still pending; false when it was used, revoked or expired meanwhile. */
export async function markAccepted(tx: Tx, id: string, now: Date): Promise<boolean> {
  const { count } = await tx.orgInvitation.updateMany({ where: { id, ...pending(now) }, data: { acceptedAt: now } });
  return count === 1;
}

/** Whether a member of the organization has this (normalized) address. */
export async function isMemberAddress(db: DbHandle, orgId: string, emailNormalized: string): Promise<boolean> {
  const row = await db.orgMember.findFirst({ where: { orgId, account: { emailNormalized } }, select: { accountId: true } });
  return row !== null;
}
