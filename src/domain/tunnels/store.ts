// The tunnels' queries: tunnel rows (with the owner's slug their hosts need), the per-account
// count that bounds them, pinned tools, the list the surfaces show, and the names (slugs, custom
// domains) held for their last owner for 30 days under advisory locks.
import type { DbHandle, Sql, Tx } from '../store.js';

/** A tunnel row with its owner's slug (its hosts need it): what the surfaces show, the card
 *  hosts and the webhook events are all worked out from this. */
export interface OwnedTunnel {
  id: string;
  subdomain: string;
  customDomain: string | null;
  discoverable: boolean;
  pinnedTools: string[];
  access: string;
  allowedEmails: string[];
  createdAt: Date;
  /** The owner: an account (`person`) or an organization (`org`). */
  account: { slug: string; kind: string };
}

const TUNNEL = {
  id: true,
  subdomain: true,
  customDomain: true,
  discoverable: true,
  pinnedTools: true,
  access: true,
  allowedEmails: true,
  createdAt: true,
  account: { select: { slug: true, kind: true } },
} as const;

/** Any tunnel by id, with its owner (an account or an organization): the access decision's input (membership/access.ts). */
export async function findTunnelWithOwner(db: DbHandle, id: string): Promise<(OwnedTunnel & { accountId: string; ownerKind: string }) | null> {
  const row = await db.tunnel.findUnique({ where: { id }, select: { ...TUNNEL, accountId: true } });
  return row && { ...row, ownerKind: row.account.kind };
}

export function findOwnedTunnel(db: DbHandle, accountId: string, id: string): Promise<OwnedTunnel | null> {
  return db.tunnel.findFirst({ where: { id, accountId }, select: TUNNEL });
}

/** Counts one more tunnel for the account; false when it already has `max`. */
export async function reserveTunnelSlot(tx: Tx, accountId: string, max: number): Promise<boolean> {
  const { count } = await tx.account.updateMany({ where: { id: accountId, tunnelCount: { lt: max } }, data: { tunnelCount: { increment: 1 } } });
  return count === 1;
}

export async function releaseTunnelSlot(tx: Tx, accountId: string): Promise<void> {
  await tx.account.updateMany({ where: { id: accountId }, data: { tunnelCount: { decrement: 1 } } });
}

export function insertTunnel(
  tx: Tx,
  tunnel: { accountId: string; subdomain: string; customDomain: string | null; access: string; allowedEmails: string[] },
): Promise<OwnedTunnel> {
  return tx.tunnel.create({ data: tunnel, select: TUNNEL });
}

export function updateTunnelRow(
  tx: Tx,
  id: string,
  data: { discoverable?: boolean; subdomain?: string; customDomain?: string | null; access?: string; allowedEmails?: string[] },
): Promise<OwnedTunnel> {
  return tx.tunnel.update({ where: { id }, data, select: TUNNEL });
}

/** Moves the tunnel from `from` to another owner (its subdomain must be free there); null when `from` no longer owns it. */
export async function moveTunnelRow(tx: Tx, id: string, from: string, accountId: string): Promise<OwnedTunnel | null> {
  const { count } = await tx.tunnel.updateMany({ where: { id, accountId: from }, data: { accountId } });
  return count === 1 ? tx.tunnel.findUnique({ where: { id }, select: TUNNEL }) : null;
}

/** Deletes the account's tunnel; false when it was gone already. */
export async function deleteTunnelRow(tx: Tx, accountId: string, id: string): Promise<boolean> {
  const { count } = await tx.tunnel.deleteMany({ where: { id, accountId } });
  return count === 1;
}

export function readTunnelTools(db: DbHandle, id: string): Promise<(OwnedTunnel & { accountId: string }) | null> {
  return db.tunnel.findUnique({ where: { id }, select: { ...TUNNEL, accountId: true } });
}

/** Replaces the pinned tool names; false when the tunnel is gone. */
export async function setPinnedTools(db: DbHandle, id: string, names: string[]): Promise<boolean> {
  // (The edge's tools/list hand-over: compared first, so an unchanged list writes nothing.)
  const { count } = await db.tunnel.updateMany({ where: { id }, data: { pinnedTools: names } });
  return count === 1;
}

/** An owner's tunnels, oldest first, for an owner already known (an organization's list of up
 *  to 1,000): one statement straight on node-postgres, no join. */
export async function selectOwnerTunnels(sql: Sql, owner: { id: string; slug: string; kind: string }): Promise<OwnedTunnel[]> {
  const rows = await sql<Omit<OwnedTunnel, 'account'>>(
    `SELECT id, subdomain, custom_domain AS "customDomain", discoverable, pinned_tools AS "pinnedTools", access,
      allowed_emails AS "allowedEmails", created_at AS "createdAt"
    FROM tunnels WHERE account_id = $1 ORDER BY created_at, id`,
    [owner.id],
  );
  const account = { slug: owner.slug, kind: owner.kind };
  return rows.map((r) => ({ ...r, account }));
}

/** The account's tunnels, oldest first. */
export function selectTunnels(db: DbHandle, accountId: string): Promise<OwnedTunnel[]> {
  return db.tunnel.findMany({ where: { accountId }, orderBy: { createdAt: 'asc' }, select: TUNNEL });
}

/** The names of the account's tunnels (their card hosts, for invalidation). */
export function selectTunnelNames(db: DbHandle, accountId: string): Promise<{ id: string; subdomain: string; customDomain: string | null }[]> {
  return db.tunnel.findMany({ where: { accountId }, select: { id: true, subdomain: true, customDomain: true } });
}

// --- names held after release (released-names.ts)

/** Arbitrary: the advisory-lock class of name claims and releases. */
const NAME_LOCK_CLASS = 730_118;

/** Takes the transaction-level advisory lock of one name. */
export async function lockName(tx: Tx, key: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${NAME_LOCK_CLASS}::int, hashtext(${key}))`;
}

export async function holdName(tx: Tx, kind: string, name: string, accountId: string, releasedAt: Date, holdUntil: Date): Promise<void> {
  await tx.releasedName.upsert({
    where: { kind_name: { kind, name } },
    create: { kind, name, accountId, releasedAt, holdUntil },
    update: { accountId, releasedAt, holdUntil },
  });
}

export function readNameHold(db: DbHandle, kind: string, name: string): Promise<{ accountId: string; holdUntil: Date } | null> {
  return db.releasedName.findUnique({ where: { kind_name: { kind, name } }, select: { accountId: true, holdUntil: true } });
}
