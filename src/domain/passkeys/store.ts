// The passkeys' queries: the credentials (public key, counter, transports, flags, name), listed
// and renamed for the surfaces (never the key or the credential id), looked up by credential id
// at a ceremony, inserted under a lock on the account row (the cap), and used with a
// compare-and-set on the signature counter.
import type { DbHandle, Tx } from '../store.js';

/** What the surfaces show of a passkey (never its key or credential id). */
const passkeySelect = {
  id: true,
  name: true,
  createdAt: true,
  lastUsedAt: true,
  backupEligible: true,
  backedUp: true,
  transports: true,
} as const;

export interface PasskeyRow {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  backupEligible: boolean;
  backedUp: boolean;
  transports: string[];
}

export function selectPasskeys(db: DbHandle, accountId: string): Promise<PasskeyRow[]> {
  return db.passkey.findMany({ where: { accountId }, select: passkeySelect, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** Renames the account's passkey; null for an unknown one or another account's. */
export async function setPasskeyName(db: DbHandle, accountId: string, id: string, name: string): Promise<PasskeyRow | null> {
  const { count } = await db.passkey.updateMany({ where: { id, accountId }, data: { name } });
  if (count === 0) return null;
  return db.passkey.findFirst({ where: { id, accountId }, select: passkeySelect });
}

export function findAccountPasskey(tx: DbHandle, accountId: string, id: string): Promise<{ id: string; name: string } | null> {
  return tx.passkey.findFirst({ where: { id, accountId }, select: { id: true, name: true } });
}

export async function deletePasskeyRow(tx: DbHandle, id: string): Promise<void> {
  await tx.passkey.delete({ where: { id } });
}

/** What registration options need: the address and the credentials to exclude. */
export function readRegistrationAccount(
  db: DbHandle,
  accountId: string,
): Promise<{ email: string; passkeys: { credentialId: string; transports: string[] }[] } | null> {
  return db.account.findUnique({ where: { id: accountId }, select: { email: true, passkeys: { select: { credentialId: true, transports: true } } } });
}

/** Locks the account row (concurrent registrations respect the cap) and counts its passkeys. */
export async function lockAccountPasskeys(tx: Tx, accountId: string): Promise<{ email: string; passkeys: number } | null> {
  const [account] = await tx.$queryRaw<{ email: string; passkeys: number }[]>`
    SELECT email, (SELECT count(*)::int FROM passkeys WHERE account_id = ${accountId}) AS passkeys
    FROM accounts WHERE id = ${accountId} FOR UPDATE`;
  return account ?? null;
}

export interface NewPasskey {
  accountId: string;
  credentialId: string;
  publicKey: Uint8Array<ArrayBuffer>;
  counter: bigint;
  transports: string[];
  aaguid: string;
  backupEligible: boolean;
  backedUp: boolean;
  name: string;
  createdAt: Date;
}

export function insertPasskey(tx: Tx, passkey: NewPasskey): Promise<PasskeyRow> {
  return tx.passkey.create({ data: passkey, select: passkeySelect });
}

export interface StoredCredential {
  id: string;
  accountId: string;
  publicKey: Uint8Array;
  counter: bigint;
  transports: string[];
  account: { id: string; email: string; emailVerified: boolean };
}

export function findCredential(db: DbHandle, credentialId: string): Promise<StoredCredential | null> {
  return db.passkey.findUnique({
    where: { credentialId },
    select: {
      id: true,
      accountId: true,
      publicKey: true,
      counter: true,
      transports: true,
      account: { select: { id: true, email: true, emailVerified: true } },
    },
  });
}

/** Compare-and-set on the counter: false when a concurrent use of the same value won. */
export async function advancePasskeyCounter(tx: Tx, id: string, newCounter: bigint, backedUp: boolean, now: Date): Promise<boolean> {
  const updated = await tx.$executeRaw`
    UPDATE passkeys SET counter = ${newCounter}, last_used_at = ${now}, backed_up = ${backedUp}
    WHERE id = ${id} AND (counter < ${newCounter} OR (counter = 0 AND ${newCounter} = 0))`;
  return updated === 1;
}
