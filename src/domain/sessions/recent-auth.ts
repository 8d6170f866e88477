// Guards on adding sign-in methods and factors, and recent authentication (API.md section 7a).
// The guards ask the database (never a cache, which could only be older):
//   - is the address verified? A factor added to an unproven address could be a stranger's, left
//     waiting for the real owner to claim the account (pre-account takeover);
//   - did this session prove a credential lately (its sign-in, or a re-authentication within
//     REAUTH_WINDOW_SECONDS)? A stolen session alone must not plant a lasting way in.
// A re-authentication (reauth/reauthentication.ts, or a provider: sso/provider-reauth.ts) marks
// the session here, then replaces its cached entry (session.ts) so `reauthenticated_until` shows it.
import type { Tx } from '../store.js';
import { readGuardRow, setAuthenticatedAt } from './store.js';
import type { AccountChange } from '../activity/account-change.js';
import type { ClientInfo, DomainDeps, Viewer } from '../context.js';
import { reauthRequired, notSignedIn, verifyAddressFirst } from '../errors.js';

type GuardDeps = Pick<DomainDeps, 'db' | 'clock' | 'policy'>;

export interface AdditionGuard {
  /** Needs a verified address (TOTP setup, passkeys, linking, tokens, devices). */
  verified: boolean;
  /** Needs a recently authenticated session (passkeys, linking, recovery codes, tokens, devices, webhooks). */
  recent: boolean;
}

/** Throws FORBIDDEN or REAUTH_REQUIRED unless the viewer's account and session pass `guard`. */
export async function guardAddition(deps: GuardDeps, viewer: Viewer, guard: AdditionGuard): Promise<void> {
  const session = await readGuardRow(deps.db, viewer.sessionId);
  // Revoked meanwhile.
  if (!session || session.accountId !== viewer.accountId) throw notSignedIn();
  if (guard.verified && !session.emailVerified) throw verifyAddressFirst();
  if (guard.recent && !isRecent(deps, session.authenticatedAt.getTime())) throw reauthRequired();
}

export const requireVerifiedAddress = (deps: GuardDeps, viewer: Viewer) => guardAddition(deps, viewer, { verified: true, recent: false });

export const requireRecentAuth = (deps: GuardDeps, viewer: Viewer) => guardAddition(deps, viewer, { verified: false, recent: true });

function isRecent(deps: Pick<DomainDeps, 'clock' | 'policy'>, authenticatedAtMs: number): boolean {
  return deps.clock().getTime() < authenticatedAtMs + deps.policy.reauthWindowMs;
}

/** Until when the session counts as recently authenticated; null once the window has passed. */
export function reauthenticatedUntil(deps: Pick<DomainDeps, 'clock' | 'policy'>, authenticatedAtMs: number): Date | null {
  return isRecent(deps, authenticatedAtMs) ? new Date(authenticatedAtMs + deps.policy.reauthWindowMs) : null;
}

/** How a session re-authenticated (the `reauthenticated` activity event's method). */
export type ReauthMethod = 'password' | 'totp' | 'recovery_code' | 'passkey' | 'google' | 'github';

/**
 * Marks the session recently authenticated and records it with the change (in the transaction of
 * the code or passkey use that proved it). Returns the session's token hash, whose cached entry
 * the caller replaces after the commit (recacheSession).
 */
export async function markReauthenticated(
  tx: Tx,
  change: AccountChange,
  at: Date,
  viewer: Pick<Viewer, 'accountId' | 'sessionId'>,
  method: ReauthMethod,
  client: ClientInfo,
): Promise<string> {
  const tokenHash = await setAuthenticatedAt(tx, viewer.accountId, viewer.sessionId, at);
  // The session was revoked meanwhile: nothing to mark.
  if (!tokenHash) throw notSignedIn();
  await change.record({ type: 'reauthenticated', client, at, detail: { method } });
  return tokenHash;
}
