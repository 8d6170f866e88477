// POST /auth/change-password: re-hash and sign out every other session; this one stays.
import type { DomainDeps, ClientInfo, Viewer } from '../context.js';
import { assertPasswordLength, hashPassword } from './password.js';
import { confirmPassword } from './password-confirmation.js';
import { voidPendingEmailChanges } from './address-proof.js';
import { revokeAccountSessions } from '../sessions/session.js';

export async function changePassword(
  deps: DomainDeps,
  viewer: Viewer,
  input: { currentPassword: string; newPassword: string },
  client: ClientInfo,
): Promise<void> {
  assertPasswordLength(input.newPassword, 'new_password');
  await confirmPassword(deps, viewer.accountId, input.currentPassword, client);
  const passwordHash = await hashPassword(input.newPassword);
  await deps.db.$transaction(async (tx) => {
    await tx.account.update({ where: { id: viewer.accountId }, data: { passwordHash } });
    // A pending email change was started with the old password: it needs the new one again.
    await voidPendingEmailChanges(tx, viewer.accountId, deps.clock());
  });
  await revokeAccountSessions(deps, viewer.accountId, viewer.sessionId);
}
