// Following a verification or reset link proves control of the address. Whatever was attached
// to the account while the address was unproven goes then: an attacker who registered the
// victim's address first (and linked their own provider identity, or started an email change)
// loses it the moment the real owner proves the address.
import type { Tx } from '../../infra/mail/outbox.js';

/** Pending email changes die: their links stop working (also after a password change). */
export async function voidPendingEmailChanges(tx: Tx, accountId: string, now: Date): Promise<void> {
  await tx.emailToken.updateMany({ where: { accountId, kind: 'change-email', usedAt: null }, data: { usedAt: now } });
}

/** Removes identities linked while unverified, and voids pending email changes and pending links. */
export async function cleanAfterAddressProof(tx: Tx, accountId: string, now: Date): Promise<{ removedProviders: string[] }> {
  const removed = await tx.linkedIdentity.findMany({
    where: { accountId, linkedWhileUnverified: true },
    select: { provider: true },
  });
  if (removed.length > 0) await tx.linkedIdentity.deleteMany({ where: { accountId, linkedWhileUnverified: true } });
  await voidPendingEmailChanges(tx, accountId, now);
  await tx.pendingLink.updateMany({ where: { accountId, usedAt: null }, data: { usedAt: now } });
  return { removedProviders: removed.map((r) => r.provider) };
}
