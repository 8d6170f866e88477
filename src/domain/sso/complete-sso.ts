// Carries out what a successful provider round trip leads to: looks up what the database says
// about the identity, asks sso-outcome.ts what follows from it, and does that, returning a value
// the HTTP adapter turns into a redirect. Races (two callbacks for one identity, a taken slug)
// end in a unique violation; the facts are then looked up again and the decision taken again on
// the new state of the database.
import type { DomainDeps, ClientInfo } from '../context.js';
import { normalizeEmail } from '../accounts/email-address.js';
import { slugCandidates } from '../accounts/slug.js';
import { isUniqueViolation } from '../../infra/db/errors.js';
import { issueSignIn, type SignedIn } from '../sessions/sign-in.js';
import type { ProviderIdentity } from './identity.js';
import { createPendingLink } from './pending-link.js';
import { decideSsoOutcome, type SsoFacts, type SsoRefusal } from './sso-outcome.js';
import { createSsoAccount } from './sso-signup.js';
import type { Intent } from './state.js';
import { changeAccount } from '../activity/account-change.js';
import { createMfaChallenge } from '../two-step/mfa-challenge.js';
import { unauthenticated } from '../errors.js';
import { recordProviderLinked } from '../identities/provider-linked.js';
import { reauthenticateWithProvider } from './provider-reauth.js';

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

export async function completeSso(deps: DomainDeps, input: SsoInput, client: ClientInfo): Promise<SsoOutcome> {
  const slugs = slugCandidates(input.identity.email);
  for (let attempt = 1; ; attempt++) {
    try {
      return await completeOnce(deps, input, () => slugs.next().value as string, client);
    } catch (err) {
      if (!isUniqueViolation(err) || attempt >= MAX_ATTEMPTS) throw err;
    }
  }
}

async function completeOnce(deps: DomainDeps, input: SsoInput, nextSlug: () => string, client: ClientInfo): Promise<SsoOutcome> {
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
      const account = await deps.db.account.findUnique({ where: { id: decision.accountId }, select: { email: true, emailVerified: true } });
      if (!account) throw unauthenticated();
      await changeAccount(deps, decision.accountId, async (tx, change) => {
        await tx.linkedIdentity.create({
          data: {
            accountId: decision.accountId,
            provider: identity.provider,
            providerUserId: identity.providerUserId,
            email: identity.email,
            linkedAt: deps.clock(),
            // Proving the address later removes it (accounts/address-proof.ts).
            linkedWhileUnverified: !account.emailVerified,
          },
        });
        await recordProviderLinked(deps, change, { accountEmail: account.email, identity, client });
      });
      return { kind: 'linked' };
    }
    case 'sign-in': {
      const row = linked!;
      if (row.account.totpCredential?.enabledAt) {
        // Two-step on: no session until the second step (APP_URL/mfa?token=…).
        const { mfaToken } = await createMfaChallenge(deps, { accountId: row.account.id, method: identity.provider });
        return { kind: 'mfa-required', token: mfaToken };
      }
      const signedIn = await issueSignIn(deps, row.account, client, { method: identity.provider, secondStep: false }, async (tx) => {
        // Keeps the provider email shown in the settings current.
        if (row.email !== identity.email) await tx.linkedIdentity.update({ where: { id: row.id }, data: { email: identity.email } });
      });
      return { kind: 'signed-in', signedIn };
    }
    case 'sign-up':
      return { kind: 'signed-in', signedIn: await createSsoAccount(deps, identity, nextSlug(), client) };
    case 'pending-link':
      return { kind: 'pending-link', token: await createPendingLink(deps, decision.accountId, identity) };
  }
}

const identityWhere = (identity: ProviderIdentity) => ({
  provider_providerUserId: { provider: identity.provider, providerUserId: identity.providerUserId },
});

/** The facts the decision needs, and the linked identity's row a sign-in works on. */
async function lookUpFacts(deps: DomainDeps, { identity, intent, viewerAccountId, viewerSessionId }: SsoInput) {
  const linkedQuery = deps.db.linkedIdentity.findUnique({
    where: identityWhere(identity),
    select: {
      id: true,
      email: true,
      account: { select: { id: true, email: true, emailVerified: true, totpCredential: { select: { enabledAt: true } } } },
    },
  });
  if (intent.kind === 'reauth') {
    const [linked, totp] = await Promise.all([
      linkedQuery,
      deps.db.totpCredential.findUnique({ where: { accountId: intent.accountId }, select: { enabledAt: true } }),
    ]);
    const facts: SsoFacts = {
      kind: 'reauth',
      accountId: intent.accountId,
      sessionId: intent.sessionId,
      viewerSessionId,
      identityAccountId: linked?.account.id ?? null,
      twoStepOn: totp?.enabledAt != null,
    };
    return { facts, linked };
  }
  if (intent.kind === 'link') {
    const [linked, sameProvider] = await Promise.all([
      linkedQuery,
      deps.db.linkedIdentity.findUnique({
        where: { accountId_provider: { accountId: intent.accountId, provider: identity.provider } },
        select: { id: true },
      }),
    ]);
    const facts: SsoFacts = {
      kind: 'link',
      accountId: intent.accountId,
      viewerAccountId,
      identityAccountId: linked?.account.id ?? null,
      accountHasProviderIdentity: sameProvider !== null,
    };
    return { facts, linked };
  }
  const [linked, account] = await Promise.all([
    linkedQuery,
    deps.db.account.findUnique({
      where: { emailNormalized: normalizeEmail(identity.email) },
      select: { id: true, passwordHash: true, linkedIdentities: { where: { provider: identity.provider }, select: { id: true } } },
    }),
  ]);
  const facts: SsoFacts = {
    kind: 'sign-in',
    identityAccountId: linked?.account.id ?? null,
    emailVerified: identity.emailVerified,
    emailAccount: account && { id: account.id, hasPassword: Boolean(account.passwordHash), hasProviderIdentity: account.linkedIdentities.length > 0 },
  };
  return { facts, linked };
}
