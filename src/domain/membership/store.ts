// The organizations' queries: the organization row (an account row of kind `org`), its members,
// invitations and audit log.
import { randomUUID } from 'node:crypto';
import type { DbHandle, Tx } from '../store.js';
import type { OrgRole } from './roles.js';

export interface OrgRow {
  id: string;
  slug: string;
  name: string;
  createdAt: Date;
  /** Moves with every change to its tunnels (tunnels/owner-lists.ts). */
  tunnelsVersion: bigint;
}

const ORG = { id: true, slug: true, name: true, createdAt: true, tunnelsVersion: true } as const;
const asOrg = (row: { id: string; slug: string; name: string | null; createdAt: Date; tunnelsVersion: bigint }): OrgRow => ({ ...row, name: row.name ?? row.slug });

/** The `email_normalized` of an organization's row: no address normalizes to it (no `@`). */
export const orgEmailKey = (id: string): string => `org:${id}`;

export async function findOrgBySlug(db: DbHandle, slug: string): Promise<OrgRow | null> {
  const row = await db.account.findFirst({ where: { slug, kind: 'org' }, select: ORG });
  return row ? asOrg(row) : null;
}

export async function findOrgById(db: DbHandle, id: string): Promise<OrgRow | null> {
  const row = await db.account.findFirst({ where: { id, kind: 'org' }, select: ORG });
  return row ? asOrg(row) : null;
}

/** The account's role in the organization, or null for a non-member. */
export async function readRole(db: DbHandle, orgId: string, accountId: string): Promise<OrgRole | null> {
  const row = await db.orgMember.findUnique({ where: { orgId_accountId: { orgId, accountId } }, select: { role: true } });
  return (row?.role as OrgRole | undefined) ?? null;
}

/** The account's organizations with its role in each, oldest membership first. */
export async function selectOrgsOf(db: DbHandle, accountId: string): Promise<(OrgRow & { role: OrgRole })[]> {
  const rows = await db.orgMember.findMany({ where: { accountId }, orderBy: { joinedAt: 'asc' }, select: { role: true, org: { select: ORG } } });
  return rows.map((r) => ({ ...asOrg(r.org), role: r.role as OrgRole }));
}

/** Locks the person's row (so two creations count one after the other) and counts the organizations they own. */
export async function lockAndCountOwned(tx: Tx, accountId: string): Promise<{ emailVerified: boolean; owned: number } | null> {
  const [row] = await tx.$queryRaw<{ email_verified: boolean }[]>`SELECT email_verified FROM accounts WHERE id = ${accountId} AND kind = 'person' FOR UPDATE`;
  if (!row) return null;
  const owned = await tx.orgMember.count({ where: { accountId, role: 'owner' } });
  return { emailVerified: row.email_verified, owned };
}

export async function insertOrg(tx: Tx, input: { slug: string; name: string; ownerId: string; now: Date }): Promise<OrgRow> {
  const id = randomUUID();
  const row = await tx.account.create({
    data: { id, kind: 'org', name: input.name, slug: input.slug, email: '', emailNormalized: orgEmailKey(id), emailVerified: false, createdAt: input.now },
    select: ORG,
  });
  await tx.orgMember.create({ data: { orgId: id, accountId: input.ownerId, role: 'owner', joinedAt: input.now } });
  return asOrg(row);
}

export async function setOrgName(tx: Tx, id: string, name: string): Promise<void> {
  await tx.account.update({ where: { id }, data: { name } });
}

/** Locks the organization's row: membership changes of one organization take turns (the last-owner rule). */
export async function lockOrg(tx: Tx, orgId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM accounts WHERE id = ${orgId} AND kind = 'org' FOR UPDATE`;
  return rows.length === 1;
}

/** Locks the rows of the organizations the account is a member of, in one order (their membership changes wait). */
export async function lockOrgsOf(tx: Tx, accountId: string): Promise<void> {
  await tx.$queryRaw`
    SELECT a.id FROM accounts a JOIN org_members m ON m.org_id = a.id
    WHERE m.account_id = ${accountId} AND a.kind = 'org' ORDER BY a.id FOR UPDATE OF a`;
}

export function countMembers(tx: Tx, orgId: string): Promise<number> {
  return tx.orgMember.count({ where: { orgId } });
}

export function countOwners(tx: Tx, orgId: string): Promise<number> {
  return tx.orgMember.count({ where: { orgId, role: 'owner' } });
}

export interface MemberRow {
  accountId: string;
  email: string;
  slug: string;
  role: OrgRole;
  joinedAt: Date;
}

/** Members, oldest first (at most MAX_MEMBERS). */
export async function selectMembers(db: DbHandle, orgId: string, max: number): Promise<MemberRow[]> {
  const rows = await db.orgMember.findMany({
    where: { orgId },
    orderBy: [{ joinedAt: 'asc' }, { accountId: 'asc' }],
    take: max,
    select: { accountId: true, role: true, joinedAt: true, account: { select: { email: true, slug: true } } },
  });
  return rows.map((r) => ({ accountId: r.accountId, email: r.account.email, slug: r.account.slug, role: r.role as OrgRole, joinedAt: r.joinedAt }));
}

/** The addresses of the members holding one of `roles` (an organization's notices go to them). */
export async function selectMemberAddresses(db: DbHandle, orgId: string, roles: readonly OrgRole[]): Promise<{ accountId: string; email: string }[]> {
  const rows = await db.orgMember.findMany({ where: { orgId, role: { in: [...roles] } }, orderBy: { joinedAt: 'asc' }, select: { accountId: true, account: { select: { email: true } } } });
  return rows.map((r) => ({ accountId: r.accountId, email: r.account.email }));
}

export async function insertMember(tx: Tx, orgId: string, accountId: string, role: OrgRole, now: Date): Promise<void> {
  await tx.orgMember.create({ data: { orgId, accountId, role, joinedAt: now } });
}

export async function setMemberRole(tx: Tx, orgId: string, accountId: string, role: OrgRole): Promise<void> {
  await tx.orgMember.update({ where: { orgId_accountId: { orgId, accountId } }, data: { role } });
}

export async function deleteMember(tx: Tx, orgId: string, accountId: string): Promise<boolean> {
  const { count } = await tx.orgMember.deleteMany({ where: { orgId, accountId } });
  return count === 1;
}

/** A person's email (for the audit log's actor and notices); null when gone. */
export async function readPersonEmail(db: DbHandle, accountId: string): Promise<{ email: string; emailVerified: boolean; emailNormalized: string } | null> {
  return db.account.findFirst({ where: { id: accountId, kind: 'person' }, select: { email: true, emailVerified: true, emailNormalized: true } });
}

/** What goes with an organization: its tunnels' names (holds, grants, cards). */
export function selectOrgTunnels(db: DbHandle, orgId: string): Promise<{ id: string; subdomain: string; customDomain: string | null }[]> {
  return db.tunnel.findMany({ where: { accountId: orgId }, select: { id: true, subdomain: true, customDomain: true } });
}

/** Credential hashes the organization's tokens are cached under (tombstoned when it goes). */
export async function selectOrgTokenHashes(db: DbHandle, orgId: string): Promise<string[]> {
  return (await db.serviceToken.findMany({ where: { accountId: orgId }, select: { tokenHash: true } })).map((t) => t.tokenHash);
}

export async function deleteOrgRow(tx: Tx, orgId: string): Promise<void> {
  await tx.account.deleteMany({ where: { id: orgId, kind: 'org' } });
}

/** The organizations the account is the last owner of, with whether anyone else is a member. */
export async function selectSoleOwnerships(db: DbHandle, accountId: string): Promise<{ id: string; slug: string; others: number }[]> {
  const owned = await db.orgMember.findMany({ where: { accountId, role: 'owner' }, select: { orgId: true, org: { select: { slug: true } } } });
  const result: { id: string; slug: string; others: number }[] = [];
  for (const o of owned) {
    const [owners, members] = await Promise.all([
      db.orgMember.count({ where: { orgId: o.orgId, role: 'owner' } }),
      db.orgMember.count({ where: { orgId: o.orgId } }),
    ]);
    if (owners === 1) result.push({ id: o.orgId, slug: o.org.slug, others: members - 1 });
  }
  return result;
}

// --- audit log

export interface AuditInput {
  orgId: string;
  type: string;
  actorId: string | null;
  actorEmail: string | null;
  actorTokenId: string | null;
  target: Record<string, unknown>;
  at: Date;
  ip: string;
}

export async function insertAudit(tx: DbHandle, e: AuditInput): Promise<void> {
  await tx.orgAuditEvent.create({ data: { ...e, target: e.target as object } });
}

export interface AuditRow {
  seq: bigint;
  id: string;
  type: string;
  actorId: string | null;
  actorEmail: string | null;
  actorTokenId: string | null;
  target: unknown;
  at: Date;
  ip: string;
}

/** Newest first: `limit` events older than the event `before` (an id), if given. */
export async function selectAudit(db: DbHandle, orgId: string, limit: number, beforeSeq: bigint | null): Promise<AuditRow[]> {
  return db.orgAuditEvent.findMany({
    where: { orgId, ...(beforeSeq === null ? {} : { seq: { lt: beforeSeq } }) },
    orderBy: { seq: 'desc' },
    take: limit,
    select: { seq: true, id: true, type: true, actorId: true, actorEmail: true, actorTokenId: true, target: true, at: true, ip: true },
  });
}

export async function auditSeqOf(db: DbHandle, orgId: string, id: string): Promise<bigint | null> {
  return (await db.orgAuditEvent.findFirst({ where: { orgId, id }, select: { seq: true } }))?.seq ?? null;
}
