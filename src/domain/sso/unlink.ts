// DELETE /api/account/sso/<provider>. The last way to sign in is never removed (SPEC 5.7): a
// password, a linked provider and a passkey each count (API.md section 8), so an account without
// a password keeps its only identity unless it has a passkey. The account row is locked so that
// two concurrent removals (two identities, or an identity and a passkey) cannot both succeed.
import type { Tx } from '../../infra/mail/outbox.js';
import type { ClientInfo, DomainDeps } from '../context.js';
import { changeAccount } from '../activity/account-change.js';
import { badRequest, notFound } from '../errors.js';
import { isProviderName } from './identity.js';

export const LAST_METHOD_MESSAGE =
  'This is your only way to sign in. Set a password before disconnecting the last login provider ' +
  '(use "Forgot password" to set one).';

const notLinked = () => notFound('This provider is not linked to your account.');

/** The ways an account can sign in, read under a lock on the account row (null: no such account). */
export interface SignInMethods {
  hasPassword: boolean;
  identities: { id: string; provider: string }[];
  passkeys: number;
}

/**
 * Locks the account row for the rest of the transaction and reads its sign-in methods. Every flow
 * that removes a method (unlinking a provider, deleting a passkey) goes through this, so the
 * last-method rule holds under concurrency.
 */
export async function lockSignInMethods(tx: Tx, accountId: string): Promise<SignInMethods | null> {
  await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`;
  const account = await tx.account.findUnique({
    where: { id: accountId },
    select: { passwordHash: true, linkedIdentities: { select: { id: true, provider: true } }, _count: { select: { passkeys: true } } },
  });
  if (!account) return null;
  return { hasPassword: account.passwordHash !== null, identities: account.linkedIdentities, passkeys: account._count.passkeys };
}

/** How many ways to sign in remain. */
export const methodCount = (m: SignInMethods): number => (m.hasPassword ? 1 : 0) + m.identities.length + m.passkeys;

export async function unlinkProvider(deps: DomainDeps, accountId: string, provider: string, client: ClientInfo): Promise<void> {
  if (!isProviderName(provider)) throw notLinked();
  await changeAccount(deps, accountId, async (tx, change) => {
    const methods = await lockSignInMethods(tx, accountId);
    const identity = methods?.identities.find((i) => i.provider === provider);
    if (!methods || !identity) throw notLinked();
    if (methodCount(methods) <= 1) throw badRequest(LAST_METHOD_MESSAGE);
    await tx.linkedIdentity.delete({ where: { id: identity.id } });
    await change.record({ type: 'provider_unlinked', client, at: deps.clock(), detail: { provider } });
  });
}
