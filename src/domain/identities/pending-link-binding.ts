// Binding a pending SSO link (sso/pending-link.ts) to its account, in the transaction of the
// sign-in it leads to. Kept here rather than with SSO because the second step of two-step
// sign-in (mfa-challenge.ts) also completes it: an account with two-step on proves its password
// to the link, and the identity is bound only once the second step has passed too.
import type { Tx } from '../store.js';
import { insertLinkedIdentity, takePendingLink } from './store.js';
import { recordProviderLinked } from './provider-linked.js';
import type { AccountChange } from '../activity/account-change.js';
import type { ClientInfo, DomainDeps } from '../context.js';
import { badRequest, PROBLEMS } from '../errors.js';

export const invalidPendingLink = () => badRequest(PROBLEMS.invalidLink, 'This link is invalid or has expired. Sign in with the provider again.');

/**
 * Uses the pending link (single use under races: only the request that flips used_at goes on) and
 * links its identity to the account. Throws invalidPendingLink when it is used or expired; a
 * unique violation when the identity was linked meanwhile.
 */
export async function bindPendingLink(
  deps: Pick<DomainDeps, 'clock' | 'mailContext'>,
  tx: Tx,
  change: AccountChange,
  linkId: string,
  account: { id: string; email: string; emailVerified: boolean },
  client: ClientInfo,
  now: Date,
): Promise<void> {
  const link = await takePendingLink(tx, linkId, account.id, now);
  if (!link) throw invalidPendingLink();
  await insertLinkedIdentity(tx, {
    accountId: account.id,
    provider: link.provider,
    providerUserId: link.providerUserId,
    email: link.providerEmail,
    linkedAt: now,
    linkedWhileUnverified: !account.emailVerified,
  });
  // As every link records it: the security event and the notice.
  const identity = { provider: link.provider, email: link.providerEmail };
  await recordProviderLinked(deps, change, { accountEmail: account.email, identity, client, at: now });
}
