// DELETE /api/account/sso/<provider>. The last way to sign in is never removed (SPEC 5.7): a
// password, a linked provider and a passkey each count (API.md section 8), so an account without
// a password keeps its only identity unless it has a passkey. The account row is locked so that
// two concurrent removals (two identities, or an identity and a passkey) cannot both succeed.
import type { ClientInfo, DomainDeps } from '../context.js';
import { changeAccount } from '../activity/account-change.js';
import { badRequest, notFound, PROBLEMS } from '../errors.js';
import { isProviderName } from './identity.js';
import { methodCount } from '../identities/sign-in-methods.js';
import { deleteLinkedIdentity, lockSignInMethods } from '../identities/store.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'clock' | 'db' | 'events' | 'mailNotify' | 'webhookNotify' | 'outbox'>;

export const LAST_METHOD_MESSAGE =
  'This is your only way to sign in. Set a password before disconnecting the last login provider ' +
  '(use "Forgot password" to set one).';

const notLinked = () => notFound(PROBLEMS.providerNotLinked, 'This provider is not linked to your account.');

export async function unlinkProvider(deps: FlowDeps, accountId: string, provider: string, client: ClientInfo): Promise<void> {
  if (!isProviderName(provider)) throw notLinked();
  await changeAccount(deps, accountId, async (tx, change) => {
    const methods = await lockSignInMethods(tx, accountId);
    const identity = methods?.identities.find((i) => i.provider === provider);
    if (!methods || !identity) throw notLinked();
    if (methodCount(methods) <= 1) throw badRequest(PROBLEMS.lastSignInMethod, LAST_METHOD_MESSAGE);
    await deleteLinkedIdentity(tx, identity.id);
    await change.record({ type: 'provider_unlinked', client, at: deps.clock(), detail: { provider } });
  });
}
