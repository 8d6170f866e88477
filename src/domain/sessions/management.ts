// Listing and ending sessions: revoke another one, log out this one, log out everywhere. A
// revocation the user asks for is recorded in the security activity with the delete.
import type { ClientInfo, DomainDeps, Viewer } from '../context.js';
import { badRequest, noSuchSession, PROBLEMS } from '../errors.js';
import { MAX_SESSIONS, accountSessions, revokeSessions, revokeSessionsAsChange } from './session.js';
import { findAccountSession, selectLiveSessions, voidPendingSecondSteps, type SessionListRow } from './store.js';
import { isUuid } from '../ids.js';
import { deleteAccountModels } from '../oauth-revocation/store.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'clock' | 'db' | 'events' | 'mailNotify' | 'webhookNotify' | 'outbox'>;


export async function revokeOtherSession(deps: FlowDeps, viewer: Viewer, sessionId: string, client: ClientInfo): Promise<void> {
  if (sessionId === viewer.sessionId) {
    throw badRequest(PROBLEMS.currentSession, 'This is the current session; use POST /auth/logout to end it.');
  }
  // Session ids are UUIDs; anything else (NUL bytes included, which PostgreSQL refuses) is unknown.
  if (!isUuid(sessionId)) throw noSuchSession();
  const row = await findAccountSession(deps.db, viewer.accountId, sessionId);
  if (!row) throw noSuchSession();
  await revokeSessionsAsChange(deps, viewer.accountId, [row], (_tx, change) =>
    change.record({ type: 'session_revoked', client, at: deps.clock(), detail: { session_id: row.id } }),
  );
}

/** The account's live sessions, newest first (at most MAX_SESSIONS). */
export function listSessions(deps: Pick<DomainDeps, 'sql' | 'clock'>, accountId: string): Promise<SessionListRow[]> {
  return selectLiveSessions(deps.sql, accountId, deps.clock(), MAX_SESSIONS);
}

export async function logout(deps: FlowDeps, viewer: Viewer): Promise<void> {
  await revokeSessions(deps, [{ id: viewer.sessionId, tokenHash: viewer.tokenHash }]);
}

/**
 * Every session ends, and so do the sign-ins waiting for their second step (API.md section 7a)
 * and every OAuth grant (section 13a: a stolen session cannot leave a credential behind).
 */
export async function logoutAll(deps: FlowDeps, viewer: Viewer, client: ClientInfo): Promise<void> {
  await revokeSessionsAsChange(deps, viewer.accountId, await accountSessions(deps, viewer.accountId), async (tx, change) => {
    await voidPendingSecondSteps(tx, viewer.accountId);
    await deleteAccountModels(tx, viewer.accountId);
    await change.record({ type: 'sessions_revoked_all', client, at: deps.clock() });
  });
}
