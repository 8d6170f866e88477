// A new identity whose email matches an account that has a password is never merged silently:
// the callback leaves a pending link (15 minutes, single use, only its SHA-256 stored) and the
// user proves the account's password to bind the two. Wrong passwords count against the same
// limits as logins and leave the pending link usable until it expires.
import type { DomainDeps, ClientInfo } from '../context.js';
import { normalizeEmail } from '../email-address.js';
import { checkSignInPassword } from '../passwords/password-check.js';
import { setPasswordHash } from '../passwords/store.js';
import { insertPendingLink, readPendingLinkSummary, readPendingLinkToConfirm } from './store.js';
import { generateToken, hashToken, isWellFormedToken } from '../../infra/crypto/tokens.js';
import { isUniqueViolation } from '../../infra/db/errors.js';
import { AppError, conflict, PROBLEMS } from '../errors.js';
import { issueSignIn, type SignedIn } from '../sessions/sign-in.js';
import type { ProviderIdentity, ProviderName } from './identity.js';
import { createMfaChallenge, type MfaRequired } from '../two-step/mfa-challenge.js';
import { bindPendingLink, invalidPendingLink as invalidLink } from '../identities/pending-link-binding.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'background' | 'cache' | 'passwords' | 'clock' | 'db' | 'events' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox' | 'sql'>;

export const PENDING_LINK_TTL_MS = 15 * 60_000;

const wrongPassword = () => new AppError(PROBLEMS.wrongPassword, 'Incorrect password.');

export async function createPendingLink(deps: FlowDeps, accountId: string, identity: ProviderIdentity): Promise<string> {
  const token = generateToken();
  const now = deps.clock();
  await insertPendingLink(deps.db, {
    accountId,
    tokenHash: hashToken(token),
    provider: identity.provider,
    providerUserId: identity.providerUserId,
    providerEmail: identity.email,
    createdAt: now,
    expiresAt: new Date(now.getTime() + PENDING_LINK_TTL_MS),
  });
  return token;
}

export interface PendingLinkSummary {
  provider: string;
  providerEmail: string;
  accountEmail: string;
}

/** What a live pending link would bind, for the page that asks for the password (read-only). */
export async function describePendingLink(deps: Pick<DomainDeps, 'db' | 'clock'>, token: unknown): Promise<PendingLinkSummary | null> {
  if (!isWellFormedToken(token)) return null;
  const link = await readPendingLinkSummary(deps.db, hashToken(token));
  if (!link || link.usedAt || link.expiresAt <= deps.clock()) return null;
  return { provider: link.provider, providerEmail: link.providerEmail, accountEmail: link.accountEmail };
}

export async function confirmLink(
  deps: FlowDeps,
  input: { token: string; password: string },
  client: ClientInfo,
): Promise<SignedIn | MfaRequired> {
  if (!isWellFormedToken(input.token)) throw invalidLink();
  const link = await readPendingLinkToConfirm(deps.db, hashToken(input.token), client.ip);
  if (!link || link.usedAt || link.expiresAt <= deps.clock()) throw invalidLink();
  const { account } = link;
  const checked = await checkSignInPassword(
    deps,
    account.id,
    { emailKey: normalizeEmail(account.email), passwordHash: account.passwordHash, knownNetwork: account.knownNetwork },
    input.password,
    client,
    wrongPassword,
  );
  const { rehash } = checked.value;
  if (account.totpOn) {
    await checked.settle();
    // Two-step on: the identity is bound once the second step passes too (identities/pending-link-binding.ts).
    if (rehash) await setPasswordHash(deps.db, account.id, rehash);
    return createMfaChallenge(deps, { accountId: account.id, method: link.provider as ProviderName, pendingLinkId: link.id });
  }
  try {
    return await issueSignIn(deps, account, client, { method: link.provider as ProviderName, secondStep: false }, async (tx, change) => {
      // The same binding as after a second step: single use, the identity, its event and notice.
      await bindPendingLink(deps, tx, change, link.id, account, client, deps.clock());
      if (rehash) await setPasswordHash(tx, account.id, rehash);
    }, checked.settle);
  } catch (err) {
    // Linked meanwhile: to this or another account, or this account got another identity of it.
    if (isUniqueViolation(err)) throw conflict(PROBLEMS.linkConflict, 'This identity or provider has been linked meanwhile; nothing was changed.');
    throw err;
  }
}
