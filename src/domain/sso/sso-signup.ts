// A new identity whose email matches no account: the account is created from what the provider
// vouches for (email_verified included), with no password, the identity linked, and signed in,
// all in one transaction. An unverified provider email gets the same verification link as a
// password signup.
import { randomUUID } from 'node:crypto';
import type { DomainDeps, ClientInfo } from '../context.js';
import { normalizeEmail } from '../email-address.js';
import { issueEmailToken } from '../accounts/email-tokens.js';
import { verifyEmail } from '../emails/messages.js';
import { issueSignIn, rememberNetwork, type SignedIn } from '../sessions/sign-in.js';
import type { ProviderIdentity } from './identity.js';
import { insertSsoAccount } from './store.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'clock' | 'db' | 'events' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox' | 'sql'>;

export async function createSsoAccount(
  deps: FlowDeps,
  identity: ProviderIdentity,
  slug: string,
  client: ClientInfo,
): Promise<SignedIn> {
  const id = randomUUID();
  const { email, emailVerified } = identity;
  return issueSignIn(deps, { id, email, emailVerified }, client, { method: identity.provider, secondStep: false }, async (tx, change) => {
    const now = deps.clock();
    await insertSsoAccount(tx, { id, email, emailNormalized: normalizeEmail(email), emailVerified, slug, createdAt: now }, identity);
    // The creating network is the account's own: its first sign-in is not a "new network".
    await rememberNetwork(tx, id, client.ip, now);
    if (!emailVerified) {
      const { token, expiresAt } = await issueEmailToken(tx, now, { accountId: id, kind: 'verify-email' });
      await change.send(email, verifyEmail(deps.mailContext, token), expiresAt);
    }
  });
}
