// The service tokens' queries: the owner's list, creation under the account's row lock (the cap
// of 50 holds under concurrent requests), revocation, the validation read by token hash, and the
// minute's last-use write.
import type { Db, DbHandle, Tx } from '../store.js';

export interface TokenRow {
  id: string;
  name: string;
  scopes: string[];
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  lastUsedIp: string | null;
  /** An organization's token: the member who made it (null for a person's own). */
  createdBy: string | null;
}

const LISTED = { id: true, name: true, scopes: true, createdAt: true, expiresAt: true, lastUsedAt: true, lastUsedIp: true, createdBy: true } as const;

export function listTokenRows(db: Db, accountId: string): Promise<TokenRow[]> {
  return db.serviceToken.findMany({ where: { accountId }, select: LISTED, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
}

/** Locks the account's row (creations queue behind each other); answers its live tokens, its address and whether it is an organization. */
export async function lockForNewToken(tx: Tx, accountId: string, now: Date): Promise<{ live: number; email: string; isOrg: boolean } | null> {
  const [account] = await tx.$queryRaw<{ email: string; kind: string }[]>`SELECT email, kind FROM accounts WHERE id = ${accountId} FOR UPDATE`;
  if (!account) return null;
  return { live: await countLiveTokens(tx, accountId, now), email: account.email, isOrg: account.kind === 'org' };
}

/** The account's unexpired tokens (the cap of 50). */
export function countLiveTokens(db: DbHandle, accountId: string, now: Date): Promise<number> {
  return db.serviceToken.count({ where: { accountId, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] } });
}

export function insertTokenRow(
  tx: Tx,
  row: { accountId: string; name: string; tokenHash: string; scopes: string[]; createdAt: Date; expiresAt: Date | null; createdBy: string | null },
): Promise<TokenRow> {
  return tx.serviceToken.create({ data: row, select: LISTED });
}

/** Deletes the account's token; answers what it was (null: none of the account's) and whether an organization owned it. */
export async function deleteTokenRow(tx: Tx, accountId: string, id: string): Promise<{ name: string; tokenHash: string; ownerIsOrg: boolean } | null> {
  const rows = await tx.$queryRaw<{ name: string; token_hash: string; kind: string }[]>`
    DELETE FROM service_tokens t USING accounts a
    WHERE t.id = ${id} AND t.account_id = ${accountId} AND a.id = t.account_id
    RETURNING t.name, t.token_hash, a.kind`;
  const row = rows[0];
  return row ? { name: row.name, tokenHash: row.token_hash, ownerIsOrg: row.kind === 'org' } : null;
}

export interface TokenCheckRow {
  id: string;
  accountId: string;
  scopes: string[];
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

export function readTokenRow(db: DbHandle, tokenHash: string): Promise<TokenCheckRow | null> {
  return db.serviceToken.findUnique({ where: { tokenHash }, select: { id: true, accountId: true, scopes: true, expiresAt: true, lastUsedAt: true } });
}

/** The minute's last-use write; an update, so a revoked (deleted) token stays deleted. */
export async function touchTokenRow(db: DbHandle, id: string, at: Date, ip: string): Promise<void> {
  await db.serviceToken.updateMany({ where: { id }, data: { lastUsedAt: at, lastUsedIp: ip } });
}

/** The hashes of every token of the account (their cache entries are tombstoned when they go). */
export async function tokenHashesOf(db: DbHandle, accountId: string): Promise<string[]> {
  const rows = await db.serviceToken.findMany({ where: { accountId }, select: { tokenHash: true } });
  return rows.map((r) => r.tokenHash);
}
