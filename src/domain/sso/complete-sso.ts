// What a successful provider round trip leads to (the callback's decision), as a value the HTTP
// adapter turns into a redirect:
//   sign-in, identity linked              → signed in, exactly like a password login
//   sign-in, new identity, email unknown  → account created from the identity, signed in
//   sign-in, email of a password account  → pending link (the password is asked for first)
//   sign-in, email of a password-less one → refused: never merged
//   link                                  → bound to the signed-in account, unless the identity
//                                           belongs to another account (refused, nothing changes)
// Races (two callbacks for one identity, a taken slug) end in a unique violation; the decision
// is then taken again on the new state of the database.
import type { DomainDeps, ClientInfo } from '../context.js';
import { normalizeEmail } from '../accounts/email-address.js';
import { slugCandidates } from '../accounts/slug.js';
import { isUniqueViolation } from '../../infra/db/errors.js';
import { issueSignIn, type SignedIn } from '../sessions/sign-in.js';
import type { ProviderIdentity } from './identity.js';
import { createPendingLink } from './pending-link.js';
import { createSsoAccount } from './sso-signup.js';
import type { Intent } from './state.js';
import { invalidateAccountView } from '../accounts/account-view.js';

export type SsoRefusal =
  /** The email belongs to an account without a password: sign in with its method and link from settings. */
  | 'use_existing_method'
  /** The identity is linked to another account. */
  | 'identity_in_use'
  /** The account already has another identity of this provider. */
  | 'provider_already_linked'
  /** intent=link, but the browser is no longer signed in to the account that started it. */
  | 'session_changed';

export type SsoOutcome =
  | { kind: 'signed-in'; signedIn: SignedIn }
  | { kind: 'linked' }
  | { kind: 'pending-link'; token: string }
  | { kind: 'refused'; reason: SsoRefusal };

const MAX_ATTEMPTS = 8;

export async function completeSso(
  deps: DomainDeps,
  input: { identity: ProviderIdentity; intent: Intent; viewerAccountId: string | null },
  client: ClientInfo,
): Promise<SsoOutcome> {
  const { identity, intent } = input;
  if (intent.kind === 'link' && input.viewerAccountId !== intent.accountId) return { kind: 'refused', reason: 'session_changed' };
  const slugs = slugCandidates(identity.email);
  for (let attempt = 1; ; attempt++) {
    try {
      return intent.kind === 'link'
        ? await linkToAccount(deps, identity, intent.accountId)
        : await signInWith(deps, identity, () => slugs.next().value as string, client);
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}

const identityWhere = (identity: ProviderIdentity) => ({
  provider_providerUserId: { provider: identity.provider, providerUserId: identity.providerUserId },
});

async function linkToAccount(deps: DomainDeps, identity: ProviderIdentity, accountId: string): Promise<SsoOutcome> {
  const existing = await deps.db.linkedIdentity.findUnique({ where: identityWhere(identity), select: { accountId: true } });
  if (existing) return existing.accountId === accountId ? { kind: 'linked' } : { kind: 'refused', reason: 'identity_in_use' };
  const sameProvider = await deps.db.linkedIdentity.findUnique({
    where: { accountId_provider: { accountId, provider: identity.provider } },
    select: { id: true },
  });
  if (sameProvider) return { kind: 'refused', reason: 'provider_already_linked' };
  await deps.db.linkedIdentity.create({
    data: {
      accountId,
      provider: identity.provider,
      providerUserId: identity.providerUserId,
      email: identity.email,
      linkedAt: deps.clock(),
    },
  });
  await invalidateAccountView(deps.cache, accountId);
  return { kind: 'linked' };
}

async function signInWith(
  deps: DomainDeps,
  identity: ProviderIdentity,
  nextSlug: () => string,
  client: ClientInfo,
): Promise<SsoOutcome> {
  const linked = await deps.db.linkedIdentity.findUnique({
    where: identityWhere(identity),
    select: { id: true, email: true, account: { select: { id: true, email: true, emailVerified: true } } },
  });
  if (linked) {
    const signedIn = await issueSignIn(deps, linked.account, client, async (tx) => {
      // Keeps the provider email shown in the settings current.
      if (linked.email !== identity.email) await tx.linkedIdentity.update({ where: { id: linked.id }, data: { email: identity.email } });
    });
    return { kind: 'signed-in', signedIn };
  }
  const account = await deps.db.account.findUnique({
    where: { emailNormalized: normalizeEmail(identity.email) },
    select: { id: true, passwordHash: true, linkedIdentities: { where: { provider: identity.provider }, select: { id: true } } },
  });
  if (!account) return { kind: 'signed-in', signedIn: await createSsoAccount(deps, identity, nextSlug(), client) };
  if (!account.passwordHash) return { kind: 'refused', reason: 'use_existing_method' };
  if (account.linkedIdentities.length > 0) return { kind: 'refused', reason: 'provider_already_linked' };
  return { kind: 'pending-link', token: await createPendingLink(deps, account.id, identity) };
}
