// Listing and ending sessions: revoke another one, log out this one, log out everywhere.
import type { AccountsDeps, Viewer } from '../accounts/context.js';
import { badRequest, notFound } from '../errors.js';
import { revokeAccountSessions, revokeSessions } from './session.js';

export async function revokeOtherSession(deps: AccountsDeps, viewer: Viewer, sessionId: string): Promise<void> {
  if (sessionId === viewer.sessionId) {
    throw badRequest('This is the current session; use POST /auth/logout to end it.');
  }
  const row = await deps.db.session.findFirst({
    where: { id: sessionId, accountId: viewer.accountId },
    select: { id: true, tokenHash: true },
  });
  if (!row) throw notFound('No such session.');
  await revokeSessions(deps, [row]);
}

export async function logout(deps: AccountsDeps, viewer: Viewer): Promise<void> {
  await revokeSessions(deps, [{ id: viewer.sessionId, tokenHash: viewer.tokenHash }]);
}

export async function logoutAll(deps: AccountsDeps, viewer: Viewer): Promise<void> {
  await revokeAccountSessions(deps, viewer.accountId);
}
