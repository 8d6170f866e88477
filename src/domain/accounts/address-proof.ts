// Following a verification or reset link proves control of the address. Whatever was attached
// to the account while the address was unproven goes then: an attacker who registered the
// victim's address first (and linked their own provider identity, started an email change, or
// added a passkey, an authenticator or a token) loses it the moment the real owner proves the
// address (pre-account takeover, API.md section 7a).
import type { Tx } from '../store.js';
import { removeFactors, removeIdentitiesLinkedWhileUnverified, voidEmailTokens, voidPendingLinks } from './store.js';
import type { AccountChange } from '../activity/account-change.js';
import type { ClientInfo } from '../context.js';
import { voidPendingSecondSteps } from '../sessions/store.js';
import { deleteAccountModels } from '../oauth-revocation/store.js';

/** Pending email changes die: their links stop working (also after a password change). */
export async function voidPendingEmailChanges(tx: Tx, accountId: string, now: Date): Promise<void> {
  await voidEmailTokens(tx, accountId, 'change-email', now);
}

export interface AddressProof {
  /** The address was unverified until this proof: everything added before it goes. */
  firstProof: boolean;
  client: ClientInfo | null;
}

/**
 * Removes identities linked while unverified, and voids pending email changes and pending links;
 * on the first proof of the address, also every passkey, authenticator, recovery code, service
 * token, OAuth grant and pending second step, each removal recorded in the security activity. Answers the
 * removed service tokens' hashes: the caller tombstones them once the change has committed.
 */
export async function cleanAfterAddressProof(
  tx: Tx,
  change: AccountChange,
  accountId: string,
  now: Date,
  proof: AddressProof,
): Promise<string[]> {
  await removeIdentitiesLinkedWhileUnverified(tx, accountId);
  await voidPendingEmailChanges(tx, accountId, now);
  await voidPendingLinks(tx, accountId, now);
  return proof.firstProof ? removeFactorsAddedBeforeProof(tx, change, accountId, now, proof.client) : [];
}

async function removeFactorsAddedBeforeProof(tx: Tx, change: AccountChange, accountId: string, at: Date, client: ClientInfo | null): Promise<string[]> {
  const { passkeys, totpWasOn, serviceTokens } = await removeFactors(tx, accountId);
  await voidPendingSecondSteps(tx, accountId);
  // OAuth grants given while the address was anyone's (API.md section 13a).
  await deleteAccountModels(tx, accountId);
  const reason = 'added before the address was verified';
  for (const p of passkeys) await change.record({ type: 'passkey_removed', client, at, detail: { passkey_id: p.id, name: p.name, reason } });
  if (totpWasOn) await change.record({ type: 'mfa_disabled', client, at, detail: { method: 'totp', reason } });
  for (const t of serviceTokens) await change.record({ type: 'token_revoked', client, at, detail: { token_id: t.id, name: t.name, reason } });
  return serviceTokens.map((t) => t.tokenHash);
}
