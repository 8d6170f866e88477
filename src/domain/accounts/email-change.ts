// Changing the address by double confirmation: the current password to ask, a link to the new
// address to confirm. The old address stays in effect until the link is used.
import { conflict, invalidConfirmationLink, invalidInput, PROBLEMS } from '../errors.js';
import { violates } from '../../infra/db/errors.js';
import { confirmEmailChange as confirmMessage, emailChanged } from '../emails/messages.js';
import { changeAccount } from '../activity/account-change.js';
import type { DomainDeps, ClientInfo } from '../context.js';
import { normalizeEmail, parseEmail } from '../email-address.js';
import { findEmailToken, issueEmailToken } from './email-tokens.js';
import { findAccountByEmail, markEmailTokenUsed, readAccountState, setEmail, voidEmailTokens } from './store.js';
import { confirmPassword } from '../passwords/password-confirmation.js';
import { LIMITS, reserve } from '../limits/rate-limit.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'passwords' | 'clock' | 'db' | 'events' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox'>;

const inUse = () => conflict(PROBLEMS.emailTaken, 'That email address is already in use.', 'newEmail');

export async function requestEmailChange(
  deps: FlowDeps,
  accountId: string,
  input: { currentPassword: string; newEmail: string },
  client: ClientInfo,
): Promise<void> {
  const newEmail = parseEmail(input.newEmail, 'newEmail');
  // Each request costs a password hash and an email to an address of the caller's choosing.
  await reserve(deps.cache, LIMITS.changeEmail, accountId, 'Too many email change requests. Try again later.');
  const account = await confirmPassword(deps, accountId, input.currentPassword, client);
  const normalized = normalizeEmail(newEmail);
  if (normalized === account.emailNormalized) throw invalidInput(PROBLEMS.emailUnchanged, 'newEmail', 'That is already the email of this account.');
  if (await findAccountByEmail(deps.db, normalized)) throw inUse();
  await changeAccount(deps, accountId, async (tx, change) => {
    // A new request replaces any earlier pending change.
    await voidEmailTokens(tx, accountId, 'change-email', deps.clock());
    const { token, expiresAt } = await issueEmailToken(tx, deps.clock(), { accountId, kind: 'change-email', newEmail });
    await change.send(newEmail, confirmMessage(deps.mailContext, token, newEmail), expiresAt);
    await change.record({ type: 'email_change_requested', client, at: deps.clock(), detail: { new_email: newEmail } });
  });
}

export async function confirmEmailChange(
  deps: FlowDeps,
  token: unknown,
  client: ClientInfo | null,
): Promise<{ email: string }> {
  const row = await findEmailToken(deps.db, token, 'change-email');
  const now = deps.clock();
  if (!row || row.usedAt || row.expiresAt <= now || !row.newEmail) {
    throw invalidConfirmationLink();
  }
  const newEmail = row.newEmail;
  try {
    await changeAccount(deps, row.accountId, async (tx, change) => {
      if (!(await markEmailTokenUsed(tx, row.id, now))) throw invalidConfirmationLink();
      const taken = await findAccountByEmail(tx, normalizeEmail(newEmail));
      if (taken && taken.id !== row.accountId) throw inUse();
      const old = await readAccountState(tx, row.accountId);
      if (!old) throw invalidConfirmationLink();
      // Following the link proves the new address, so it counts as verified.
      await setEmail(tx, row.accountId, newEmail, normalizeEmail(newEmail));
      await change.record({ type: 'email_changed', client, at: now, detail: { new_email: newEmail } });
      // The old address hears of it: it is the one a thief would want silenced.
      await change.send(old.email, emailChanged(deps.mailContext, { at: now, newEmail }));
    });
  } catch (err) {
    if (violates(err, 'email_normalized', 'emailNormalized')) throw inUse();
    throw err;
  }
  return { email: newEmail };
}
