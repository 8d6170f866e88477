// Verifying the address (POST /auth/verify-email) and re-sending the link
// (POST /auth/resend-verification, 5 per 15 minutes per account, counted in the shared cache).
// The welcome email goes out once per account, ever: welcome_sent_at is claimed atomically.
import { badRequest, PROBLEMS, rateLimited } from '../errors.js';
import { verifyEmail as verifyEmailMessage, welcome } from '../emails/messages.js';
import type { ClientInfo, DomainDeps } from '../context.js';
import { findEmailToken, issueEmailToken } from './email-tokens.js';
import { claimWelcome, markEmailTokenUsed, markVerified, readAccountState } from './store.js';
import { LIMITS, consume } from '../limits/rate-limit.js';
import { cleanAfterAddressProof } from './address-proof.js';
import { changeAccount } from '../activity/account-change.js';
import { tombstone } from '../sessions/session.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'clock' | 'db' | 'events' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox'>;

const invalidLink = () => badRequest(PROBLEMS.invalidLink, 'This verification link is invalid or has expired.');

export async function verifyEmail(deps: FlowDeps, token: unknown, client: ClientInfo | null): Promise<{ emailVerified: true }> {
  const row = await findEmailToken(deps.db, token, 'verify-email');
  if (!row) throw invalidLink();
  const now = deps.clock();
  if (row.usedAt) {
    // A replayed link on a verified account is a no-op success; never a second welcome.
    if ((await readAccountState(deps.db, row.accountId))?.emailVerified) return { emailVerified: true };
    throw invalidLink();
  }
  if (row.expiresAt <= now) throw invalidLink();
  const removedTokens = await changeAccount(deps, row.accountId, async (tx, change) => {
    if (!(await markEmailTokenUsed(tx, row.id, now))) return [];
    const removed = (await markVerified(tx, row.accountId)) ? await cleanAfterAddressProof(tx, change, row.accountId, now, { firstProof: true, client }) : [];
    const account = await readAccountState(tx, row.accountId);
    if (account && (await claimWelcome(tx, row.accountId, now))) await change.send(account.email, welcome(deps.mailContext));
    return removed;
  });
  await tombstone(deps, removedTokens);
  return { emailVerified: true };
}

export async function resendVerification(deps: FlowDeps, accountId: string): Promise<void> {
  const account = await readAccountState(deps.db, accountId);
  if (!account || account.emailVerified) return;
  const { allowed, retryAfterSeconds } = await consume(deps.cache, LIMITS.resendVerification, accountId);
  if (!allowed) throw rateLimited(PROBLEMS.tooManyEmails, retryAfterSeconds, 'Too many verification emails. Try again later.');
  await changeAccount(deps, accountId, async (tx, change) => {
    const { token, expiresAt } = await issueEmailToken(tx, deps.clock(), { accountId, kind: 'verify-email' });
    await change.send(account.email, verifyEmailMessage(deps.mailContext, token), expiresAt);
  });
}
