// Following a verification or reset link proves control of the address. Whatever was attached
// to the account while the address was unproven goes then: an attacker who registered the
// victim's address first (and linked their own provider identity, started an email change, or
// added a passkey, an authenticator or a token) loses it the moment the real owner proves the
// address (pre-account takeover, API.md section 7a).
import type { Tx } from '../../infra/mail/outbox.js';
import type { AccountChange } from '../activity/account-change.js';
import type { ClientInfo } from '../context.js';
import { voidPendingSecondSteps } from '../sessions/pending-second-steps.js';

/** Pending email changes die: their links stop working (also after a password change). */
export async function voidPendingEmailChanges(tx: Tx, accountId: string, now: Date): Promise<void> {
  await tx.emailToken.updateMany({ where: { accountId, kind: 'change-email', usedAt: null }, data: { usedAt: now } });
}

export interface AddressProof {
  /** The address was unverified until this proof: everything added before it goes. */
  firstProof: boolean;
  client: ClientInfo | null;
}

/**
 * Removes identities linked while unverified, and voids pending email changes and pending links;
 * on the first proof of the address, also every passkey, authenticator, recovery code, service
 * token and pending second step, each removal recorded in the security activity.
 */
export async function cleanAfterAddressProof(
  tx: Tx,
  change: AccountChange,
  accountId: string,
  now: Date,
  proof: AddressProof,
): Promise<{ removedProviders: string[] }> {
  const removed = await tx.linkedIdentity.findMany({
    where: { accountId, linkedWhileUnverified: true },
    select: { provider: true },
  });
  if (removed.length > 0) await tx.linkedIdentity.deleteMany({ where: { accountId, linkedWhileUnverified: true } });
  await voidPendingEmailChanges(tx, accountId, now);
  await tx.pendingLink.updateMany({ where: { accountId, usedAt: null }, data: { usedAt: now } });
  if (proof.firstProof) await removeFactorsAddedBeforeProof(tx, change, accountId, now, proof.client);
  return { removedProviders: removed.map((r) => r.provider) };
}

async function removeFactorsAddedBeforeProof(tx: Tx, change: AccountChange, accountId: string, at: Date, client: ClientInfo | null): Promise<void> {
  const [passkeys, totp] = await Promise.all([
    tx.passkey.findMany({ where: { accountId }, select: { id: true, name: true } }),
    tx.totpCredential.findUnique({ where: { accountId }, select: { enabledAt: true } }),
  ]);
  await tx.passkey.deleteMany({ where: { accountId } });
  await tx.totpCredential.deleteMany({ where: { accountId } });
  await tx.recoveryCode.deleteMany({ where: { accountId } });
  await tx.serviceToken.deleteMany({ where: { accountId } });
  await voidPendingSecondSteps(tx, accountId);
  const reason = 'added before the address was verified';
  for (const p of passkeys) await change.record({ type: 'passkey_removed', client, at, detail: { passkey_id: p.id, name: p.name, reason } });
  if (totp?.enabledAt) await change.record({ type: 'mfa_disabled', client, at, detail: { method: 'totp', reason } });
}
