// Re-authentication with a linked provider (API.md section 7a), for an account with neither a
// password nor a second factor to give: GET /auth/oauth/<provider>/start?intent=reauth, and the
// callback marks the session that started it when the provider answers with the identity linked
// to its account (sso-outcome.ts decides). With two-step sign-in on, a provider's sign-in alone
// never stands in for the code: the account re-authenticates with a code or a passkey instead.
import type { ClientInfo, DomainDeps, Viewer } from '../context.js';
import { badRequest, forbidden, PROBLEMS, notSignedIn } from '../errors.js';
import { recacheSession } from '../sessions/session.js';
import { markReauthenticated } from '../sessions/recent-auth.js';
import { readReauthAccount } from './store.js';
import { changeAccount } from '../activity/account-change.js';
import type { ProviderName } from './identity.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'clock' | 'db' | 'sql' | 'events' | 'mailNotify' | 'webhookNotify' | 'outbox'>;

/** Whether the session may start a re-authentication with `provider`: linked, and two-step off. */
export async function assertProviderReauthAllowed(deps: Pick<DomainDeps, 'db'>, viewer: Viewer, provider: ProviderName): Promise<void> {
  const account = await readReauthAccount(deps.db, viewer.accountId, provider);
  if (!account) throw notSignedIn();
  if (account.totpOn) {
    throw forbidden(PROBLEMS.reauthOtherWay, 'Two-step sign-in is on: confirm it is you with a code from your authenticator app, a recovery code or a passkey.');
  }
  if (!account.linked) throw badRequest(PROBLEMS.providerCannotConfirm, 'This provider is not linked to your account: confirm it is you another way.');
}

/** The provider answered with the identity linked to the session's account: the session is recent again. */
export async function reauthenticateWithProvider(
  deps: FlowDeps,
  viewer: Pick<Viewer, 'accountId' | 'sessionId'>,
  provider: ProviderName,
  client: ClientInfo,
): Promise<void> {
  const tokenHash = await changeAccount(deps, viewer.accountId, (tx, change) => markReauthenticated(tx, change, deps.clock(), viewer, provider, client));
  await recacheSession(deps, tokenHash);
}
