// Sign-ins waiting for their second step (two-step/mfa-challenge.ts) end when the account's
// credentials or sessions change: a reset, a password change, logout-all, two-step turned off, a
// first proof of the address (API.md section 7a). Their mfa_tokens then find nothing.
import type { Tx } from '../../infra/mail/outbox.js';

export async function voidPendingSecondSteps(tx: Tx, accountId: string): Promise<void> {
  await tx.mfaChallenge.deleteMany({ where: { accountId } });
}
