// What a successful provider round trip leads to, decided from what the database says about the
// identity (complete-sso.ts looks the facts up and carries the decision out):
//   sign-in, identity linked              → signed in to its account, exactly like a password login
//   sign-in, new identity, email unverified by the provider → refused: it claims no address
//   sign-in, new identity, email unknown  → sign-up: an account made from the identity
//   sign-in, email of a password account  → pending link (the password is asked for first)
//   sign-in, email of a password-less one → refused: never merged
//   link                                  → bound to the signed-in account, unless the browser is
//                                           no longer signed in to it or the identity belongs to
//                                           another account (refused, nothing changes)
//   reauth                                → the session that started it is recently authenticated
//                                           again, when the identity is the one linked to its
//                                           account and two-step sign-in is still off
// In both flows an account never gets a second identity of one provider.

export type SsoRefusal =
  /** The provider does not vouch for the email: it neither creates nor matches an account. */
  | 'unverified_email'
  /** The email belongs to an account without a password: sign in with its method and link from settings. */
  | 'use_existing_method'
  /** The identity is linked to another account. */
  | 'identity_in_use'
  /** The account already has another identity of this provider. */
  | 'provider_already_linked'
  /** intent=link or reauth, but the browser is no longer signed in to the session that started it. */
  | 'session_changed'
  /** intent=reauth with a provider identity that is not the one linked to the account. */
  | 'identity_mismatch'
  /** intent=reauth while two-step sign-in is on: the provider alone does not stand in for the code. */
  | 'second_step_required';

export type SsoFacts =
  | {
      kind: 'sign-in';
      /** The account the provider identity is linked to; null for a new identity. */
      identityAccountId: string | null;
      /** Whether the provider says the identity's email is verified. */
      emailVerified: boolean;
      /** The account holding the identity's email; null when there is none. */
      emailAccount: { id: string; hasPassword: boolean; hasProviderIdentity: boolean } | null;
    }
  | {
      kind: 'link';
      /** The account that started the link. */
      accountId: string;
      /** The account the browser is signed in to at the callback. */
      viewerAccountId: string | null;
      identityAccountId: string | null;
      /** The account that started the link already has an identity of this provider. */
      accountHasProviderIdentity: boolean;
    }
  | {
      kind: 'reauth';
      /** The account and session that started the re-authentication. */
      accountId: string;
      sessionId: string;
      /** The session the browser is signed in with at the callback. */
      viewerSessionId: string | null;
      identityAccountId: string | null;
      /** Two-step sign-in is on for the account. */
      twoStepOn: boolean;
    };

export type SsoDecision =
  | { kind: 'sign-in'; accountId: string }
  | { kind: 'sign-up' }
  | { kind: 'pending-link'; accountId: string }
  | { kind: 'link'; accountId: string }
  | { kind: 'reauthenticate'; accountId: string; sessionId: string }
  /** The identity is linked to this very account already: nothing to do. */
  | { kind: 'already-linked' }
  | { kind: 'refused'; reason: SsoRefusal };

export function decideSsoOutcome(facts: SsoFacts): SsoDecision {
  if (facts.kind === 'reauth') {
    if (facts.viewerSessionId !== facts.sessionId) return { kind: 'refused', reason: 'session_changed' };
    if (facts.identityAccountId !== facts.accountId) return { kind: 'refused', reason: 'identity_mismatch' };
    if (facts.twoStepOn) return { kind: 'refused', reason: 'second_step_required' };
    return { kind: 'reauthenticate', accountId: facts.accountId, sessionId: facts.sessionId };
  }
  if (facts.kind === 'link') {
    if (facts.viewerAccountId !== facts.accountId) return { kind: 'refused', reason: 'session_changed' };
    if (facts.identityAccountId !== null) {
      return facts.identityAccountId === facts.accountId ? { kind: 'already-linked' } : { kind: 'refused', reason: 'identity_in_use' };
    }
    if (facts.accountHasProviderIdentity) return { kind: 'refused', reason: 'provider_already_linked' };
    return { kind: 'link', accountId: facts.accountId };
  }
  if (facts.identityAccountId !== null) return { kind: 'sign-in', accountId: facts.identityAccountId };
  // An address the provider does not vouch for claims nothing: no account made, none matched.
  if (!facts.emailVerified) return { kind: 'refused', reason: 'unverified_email' };
  const account = facts.emailAccount;
  if (!account) return { kind: 'sign-up' };
  if (!account.hasPassword) return { kind: 'refused', reason: 'use_existing_method' };
  if (account.hasProviderIdentity) return { kind: 'refused', reason: 'provider_already_linked' };
  return { kind: 'pending-link', accountId: account.id };
}
