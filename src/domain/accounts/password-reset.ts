// Forgot and reset password. forgot-password answers the same (204) for every address; known
// addresses get a 1-hour link, at most 5 per 15 minutes. Resetting sets the password, proves
// the address (on an unverified account, that removes every factor added before: address-proof.ts),
// voids pending second steps, and signs out every session. It is also how an SSO-only account
// gets a password. Two-step sign-in stays on for a verified account: the next sign-in asks for it.
import { badRequest, PROBLEMS } from '../errors.js';
import { passwordChanged, resetPassword as resetMessage } from '../emails/messages.js';
import { changeAccount } from '../activity/account-change.js';
import { revokeAccountSessions, tombstone } from '../sessions/session.js';
import type { ClientInfo, DomainDeps } from '../context.js';
import { hasNul, normalizeEmail } from '../email-address.js';
import { findEmailToken, issueEmailToken } from './email-tokens.js';
import { findAccountByEmail, markEmailTokenUsed, markVerified, setResetPassword, voidEmailTokens } from './store.js';
import { assertPasswordLength } from '../passwords/password.js';
import { assertNotBreached } from '../passwords/breached-password.js';
import { LIMITS, consume } from '../limits/rate-limit.js';
import { cleanAfterAddressProof } from './address-proof.js';
import { voidPendingSecondSteps } from '../sessions/store.js';
import { deleteAccountModels } from '../oauth-revocation/store.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'background' | 'breachedPasswords' | 'cache' | 'passwords' | 'clock' | 'db' | 'events' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox'>;

/**
 * Answers at once and the same for every address: the lookup, the limit and the email of a known
 * address run after the reply, so neither the answer nor its timing tells whether an account
 * exists.
 */
export function forgotPassword(deps: FlowDeps, email: string): void {
  deps.background.run('forgot-password: issue a reset link', () => sendResetLink(deps, email));
}

async function sendResetLink(deps: FlowDeps, email: string): Promise<void> {
  const emailNormalized = normalizeEmail(email);
  if (emailNormalized.length > 254 || hasNul(emailNormalized)) return;
  const account = await findAccountByEmail(deps.db, emailNormalized);
  if (!account) return;
  const { allowed } = await consume(deps.cache, LIMITS.forgotPassword, account.id);
  if (!allowed) return;
  await changeAccount(deps, account.id, async (tx, change) => {
    const { token, expiresAt } = await issueEmailToken(tx, deps.clock(), { accountId: account.id, kind: 'reset-password' });
    await change.send(account.email, resetMessage(deps.mailContext, token), expiresAt);
  });
}

export async function resetPassword(
  deps: FlowDeps,
  input: { token: unknown; newPassword: string },
  client: ClientInfo | null,
): Promise<void> {
  assertPasswordLength(input.newPassword, 'newPassword');
  const row = await findEmailToken(deps.db, input.token, 'reset-password');
  const now = deps.clock();
  const invalid = () => badRequest(PROBLEMS.invalidLink, 'This reset link is invalid or has expired.');
  if (!row || row.usedAt || row.expiresAt <= now) throw invalid();
  await assertNotBreached(deps, input.newPassword, 'newPassword');
  const passwordHash = await deps.passwords.hash(input.newPassword);
  const removedTokens = await changeAccount(deps, row.accountId, async (tx, change) => {
    if (!(await markEmailTokenUsed(tx, row.id, now))) throw invalid();
    // Every other outstanding reset link dies with this one.
    await voidEmailTokens(tx, row.accountId, 'reset-password', now);
    const firstProof = await markVerified(tx, row.accountId);
    const account = await setResetPassword(tx, row.accountId, passwordHash);
    const removed = await cleanAfterAddressProof(tx, change, row.accountId, now, { firstProof, client });
    await voidPendingSecondSteps(tx, row.accountId);
    // Every OAuth grant goes with the sessions (API.md section 13a).
    await deleteAccountModels(tx, row.accountId);
    await change.record({ type: 'password_reset', client, at: now });
    await change.send(account.email, passwordChanged(deps.mailContext, { at: now, how: 'reset' }));
    return removed;
  });
  await tombstone(deps, removedTokens);
  await revokeAccountSessions(deps, row.accountId);
}
