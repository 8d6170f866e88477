// DELETE /api/account/sso/<provider>. The last way to sign in is never removed (SPEC 5.7): an
// account without a password keeps its only identity. The account row is locked so that two
// concurrent unlinks of a password-less account's two identities cannot both succeed.
import type { DomainDeps } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { isProviderName } from './identity.js';
import { invalidateAccountView } from '../accounts/account-view.js';

export const LAST_METHOD_MESSAGE =
  'This is your only way to sign in. Set a password before disconnecting the last login provider ' +
  '(use "Forgot password" to set one).';

const notLinked = () => notFound('This provider is not linked to your account.');

export async function unlinkProvider(deps: DomainDeps, accountId: string, provider: string): Promise<void> {
  if (!isProviderName(provider)) throw notLinked();
  await deps.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`;
    const account = await tx.account.findUnique({
      where: { id: accountId },
      select: { passwordHash: true, linkedIdentities: { select: { id: true, provider: true } } },
    });
    const identity = account?.linkedIdentities.find((i) => i.provider === provider);
    if (!account || !identity) throw notLinked();
    if (account.passwordHash === null && account.linkedIdentities.length <= 1) throw badRequest(LAST_METHOD_MESSAGE);
    await tx.linkedIdentity.delete({ where: { id: identity.id } });
  });
  await invalidateAccountView(deps.cache, accountId);
}
