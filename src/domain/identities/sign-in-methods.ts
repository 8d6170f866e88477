// The ways an account can sign in (SPEC 5.7, API.md section 8): a password, each linked provider
// and each passkey count. Every flow that removes one (unlinking a provider, deleting a passkey)
// reads them under a lock on the account row, so two concurrent removals cannot both pass and
// leave an account nobody can open.
import type { Tx } from '../../infra/mail/outbox.js';

/** The ways an account can sign in, read under a lock on the account row (null: no such account). */
export interface SignInMethods {
  hasPassword: boolean;
  identities: { id: string; provider: string }[];
  passkeys: number;
}

/**
 * Locks the account row for the rest of the transaction and reads its sign-in methods. Every flow
 * that removes a method (unlinking a provider, deleting a passkey) goes through this, so the
 * last-method rule holds under concurrency.
 */
export async function lockSignInMethods(tx: Tx, accountId: string): Promise<SignInMethods | null> {
  await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`;
  const account = await tx.account.findUnique({
    where: { id: accountId },
    select: { passwordHash: true, linkedIdentities: { select: { id: true, provider: true } }, _count: { select: { passkeys: true } } },
  });
  if (!account) return null;
  return { hasPassword: account.passwordHash !== null, identities: account.linkedIdentities, passkeys: account._count.passkeys };
}

/** How many ways to sign in remain. */
export const methodCount = (m: SignInMethods): number => (m.hasPassword ? 1 : 0) + m.identities.length + m.passkeys;
