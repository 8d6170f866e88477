// Linked provider identities and pending links' queries: binding a pending link (single use),
// linking and unlinking an identity, and the account's sign-in methods read under a lock on the
// account row (every removal of a method goes through it, so the last-method rule holds).
import type { DbHandle, Tx } from '../store.js';

export interface NewIdentity {
  accountId: string;
  provider: string;
  providerUserId: string;
  email: string;
  linkedAt: Date;
  /** Proving the address later removes it (accounts/address-proof.ts). */
  linkedWhileUnverified: boolean;
}

export async function insertLinkedIdentity(tx: DbHandle, identity: NewIdentity): Promise<void> {
  await tx.linkedIdentity.create({ data: identity });
}

export async function deleteLinkedIdentity(tx: DbHandle, id: string): Promise<void> {
  await tx.linkedIdentity.delete({ where: { id } });
}

/** Keeps the provider email shown in the settings current. */
export async function setIdentityEmail(tx: DbHandle, id: string, email: string): Promise<void> {
  await tx.linkedIdentity.update({ where: { id }, data: { email } });
}

/**
 * Uses the account's live pending link once (only the request that flips used_at goes on) and
 * answers what it links; null when it is used, expired or another account's.
 */
export async function takePendingLink(
  tx: Tx,
  linkId: string,
  accountId: string,
  now: Date,
): Promise<{ provider: string; providerUserId: string; providerEmail: string } | null> {
  const { count } = await tx.pendingLink.updateMany({ where: { id: linkId, accountId, usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
  if (count !== 1) return null;
  return tx.pendingLink.findUniqueOrThrow({ where: { id: linkId }, select: { provider: true, providerUserId: true, providerEmail: true } });
}

/** The ways an account can sign in, read under a lock on the account row (null: no such account). */
export interface SignInMethods {
  hasPassword: boolean;
  identities: { id: string; provider: string }[];
  passkeys: number;
}

/** Locks the account row for the rest of the transaction and reads its sign-in methods. */
export async function lockSignInMethods(tx: Tx, accountId: string): Promise<SignInMethods | null> {
  await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`;
  const account = await tx.account.findUnique({
    where: { id: accountId },
    select: { passwordHash: true, linkedIdentities: { select: { id: true, provider: true } }, _count: { select: { passkeys: true } } },
  });
  if (!account) return null;
  return { hasPassword: account.passwordHash !== null, identities: account.linkedIdentities, passkeys: account._count.passkeys };
}
