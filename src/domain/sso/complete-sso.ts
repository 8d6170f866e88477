// Carries out what a successful provider round trip leads to: looks up what the database says
// about the identity, asks sso-outcome.ts what follows from it, and does that, returning a value
// the HTTP adapter turns into a redirect. Races (two callbacks for one identity, a taken slug)
// end in a unique violation; the facts are then looked up again and the decision taken again on
// the new state of the database.
import type { DomainDeps, ClientInfo } from '../context.js';
import { normalizeEmail } from '../email-address.js';
import { slugCandidates } from '../accounts/slug.js';
import { isUniqueViolation } from '../../infra/db/errors.js';
import { issueSignIn, type SignedIn } from '../sessions/sign-in.js';
import type { ProviderIdentity } from './identity.js';
import { createPendingLink } from './pending-link.js';
import { decideSsoOutcome, type SsoFacts, type SsoRefusal } from './sso-outcome.js';
import { createSsoAccount } from './sso-signup.js';
import type { Intent } from './state.js';
import { changeAccount } from '../activity/account-change.js';
import { readAccountState } from '../accounts/store.js';
import { insertLinkedIdentity, setIdentityEmail } from '../identities/store.js';
import { findEmailAccount, findLinkedIdentity, hasProviderIdentity } from './store.js';
import { readTotpOn } from '../two-step/store.js';
import { createMfaChallenge } from '../two-step/mfa-challenge.js';
import { notSignedIn } from '../errors.js';
import { recordProviderLinked } from '../identities/provider-linked.js';
import { reauthenticateWithProvider } from './provider-reauth.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'background' | 'cache' | 'passwords' | 'clock' | 'db' | 'events' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox' | 'sql'>;

export type SsoOutcome =
  | { kind: 'signed-in'; signedIn: SignedIn }
  | { kind: 'linked' }
  | { kind: 'reauthenticated' }
  | { kind: 'pending-link'; token: string }
  | { kind: 'mfa-required'; token: string }
  | { kind: 'refused'; reason: SsoRefusal };

interface SsoInput {
  identity: ProviderIdentity;
  intent: Intent;
  viewerAccountId: string | null;
  viewerSessionId: string | null;
}

const MAX_ATTEMPTS = 8;

export async function completeSso(deps: FlowDeps, input: SsoInput, client: ClientInfo): Promise<SsoOutcome> {
  const slugs = slugCandidates(input.identity.email);
  for (let attempt = 1; ; attempt++) {
    try {
      return await completeOnce(deps, input, () => slugs.next().value as string, client);
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}

async function completeOnce(deps: FlowDeps, input: SsoInput, nextSlug: () => string, client: ClientInfo): Promise<SsoOutcome> {
  const { identity } = input;
  const { facts, linked } = await lookUpFacts(deps, input);
  const decision = decideSsoOutcome(facts);
  switch (decision.kind) {
    case 'refused':
      return { kind: 'refused', reason: decision.reason };
    case 'already-linked':
      return { kind: 'linked' };
    case 'reauthenticate':
      await reauthenticateWithProvider(deps, { accountId: decision.accountId, sessionId: decision.sessionId }, identity.provider, client);
      return { kind: 'reauthenticated' };
    case 'link': {
      const account = await readAccountState(deps.db, decision.accountId);
      if (!account) throw notSignedIn();
      await changeAccount(deps, decision.accountId, async (tx, change) => {
        await insertLinkedIdentity(tx, {
          accountId: decision.accountId,
          provider: identity.provider,
          providerUserId: identity.providerUserId,
          email: identity.email,
          linkedAt: deps.clock(),
          linkedWhileUnverified: !account.emailVerified,
        });
        await recordProviderLinked(deps, change, { accountEmail: account.email, identity, client });
      });
      return { kind: 'linked' };
    }
    case 'sign-in': {
      const row = linked!;
      if (row.account.totpOn) {
        // Two-step on: no session until the second step (APP_URL/mfa?token=…).
        const { mfaToken } = await createMfaChallenge(deps, { accountId: row.account.id, method: identity.provider });
        return { kind: 'mfa-required', token: mfaToken };
      }
      const signedIn = await issueSignIn(deps, row.account, client, { method: identity.provider, secondStep: false }, async (tx) => {
        // Keeps the provider email shown in the settings current.
        if (row.email !== identity.email) await setIdentityEmail(tx, row.id, identity.email);
      });
      return { kind: 'signed-in', signedIn };
    }
    case 'sign-up':
      return { kind: 'signed-in', signedIn: await createSsoAccount(deps, identity, nextSlug(), client) };
    case 'pending-link':
      return { kind: 'pending-link', token: await createPendingLink(deps, decision.accountId, identity) };
  }
}

/** The facts the decision needs, and the linked identity's row a sign-in works on. */
async function lookUpFacts(deps: FlowDeps, { identity, intent, viewerAccountId, viewerSessionId }: SsoInput) {
  const linkedQuery = findLinkedIdentity(deps.db, identity.provider, identity.providerUserId);
  if (intent.kind === 'reauth') {
    const [linked, twoStepOn] = await Promise.all([linkedQuery, readTotpOn(deps.db, intent.accountId)]);
    const facts: SsoFacts = {
      kind: 'reauth',
      accountId: intent.accountId,
      sessionId: intent.sessionId,
      viewerSessionId,
      identityAccountId: linked?.account.id ?? null,
      twoStepOn,
    };
    return { facts, linked };
  }
  if (intent.kind === 'link') {
    const [linked, sameProvider] = await Promise.all([linkedQuery, hasProviderIdentity(deps.db, intent.accountId, identity.provider)]);
    const facts: SsoFacts = {
      kind: 'link',
      accountId: intent.accountId,
      viewerAccountId,
      identityAccountId: linked?.account.id ?? null,
      accountHasProviderIdentity: sameProvider,
    };
    return { facts, linked };
  }
  const [linked, emailAccount] = await Promise.all([linkedQuery, findEmailAccount(deps.db, normalizeEmail(identity.email), identity.provider)]);
  const facts: SsoFacts = {
    kind: 'sign-in',
    identityAccountId: linked?.account.id ?? null,
    emailVerified: identity.emailVerified,
    emailAccount,
  };
  return { facts, linked };
}
