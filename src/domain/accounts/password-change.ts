// POST /auth/change-password: re-hash and sign out every other session; this one stays. Pending
// email changes and pending second steps of sign-ins (mfa_tokens) die with the old password.
import type { DomainDeps, ClientInfo, Viewer } from '../context.js';
import { assertPasswordLength } from '../passwords/password.js';
import { assertNotBreached } from '../passwords/breached-password.js';
import { confirmPassword } from '../passwords/password-confirmation.js';
import { voidPendingEmailChanges } from './address-proof.js';
import { setPassword } from './store.js';
import { voidPendingSecondSteps } from '../sessions/store.js';
import { deleteAccountModels } from '../oauth-revocation/store.js';
import { revokeAccountSessions } from '../sessions/session.js';
import { changeAccount } from '../activity/account-change.js';
import { passwordChanged } from '../emails/messages.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'breachedPasswords' | 'cache' | 'passwords' | 'clock' | 'db' | 'events' | 'mailContext' | 'mailNotify' | 'webhookNotify' | 'outbox'>;

export async function changePassword(
  deps: FlowDeps,
  viewer: Viewer,
  input: { currentPassword: string; newPassword: string },
  client: ClientInfo,
): Promise<void> {
  assertPasswordLength(input.newPassword, 'newPassword');
  const account = await confirmPassword(deps, viewer.accountId, input.currentPassword, client);
  await assertNotBreached(deps, input.newPassword, 'newPassword');
  const passwordHash = await deps.passwords.hash(input.newPassword);
  const now = deps.clock();
  await changeAccount(deps, viewer.accountId, async (tx, change) => {
    await setPassword(tx, viewer.accountId, passwordHash);
    // A pending email change was started with the old password: it needs the new one again.
    await voidPendingEmailChanges(tx, viewer.accountId, now);
    await voidPendingSecondSteps(tx, viewer.accountId);
    // Every OAuth grant goes with the other sessions (API.md section 13a).
    await deleteAccountModels(tx, viewer.accountId);
    await change.record({ type: 'password_changed', client, at: now });
    await change.send(account.email, passwordChanged(deps.mailContext, { at: now, how: 'changed' }));
  });
  await revokeAccountSessions(deps, viewer.accountId, viewer.sessionId);
}
