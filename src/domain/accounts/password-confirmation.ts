// The current password, asked again before sensitive changes (change email, change password,
// delete account). Wrong answers count against the same limits as sign-in attempts, so a stolen
// session cannot be used to guess the password.
import { AppError, unauthenticated } from '../errors.js';
import type { AccountsDeps, ClientInfo } from '../context.js';
import { recordFailure } from './login.js';
import { verifyPassword } from './password.js';
import { LIMITS, assertUnderLimit } from './rate-limit.js';

export interface ConfirmedAccount {
  id: string;
  email: string;
  emailNormalized: string;
  slug: string;
}

export async function confirmPassword(
  deps: AccountsDeps,
  accountId: string,
  password: string,
  client: ClientInfo,
): Promise<ConfirmedAccount> {
  const account = await deps.db.account.findUnique({
    where: { id: accountId },
    select: { id: true, email: true, emailNormalized: true, slug: true, passwordHash: true },
  });
  if (!account) throw unauthenticated();
  if (!account.passwordHash) {
    throw new AppError(
      'UNAUTHENTICATED',
      'This account has no password yet. Set one with "Forgot password" first.',
    );
  }
  await assertUnderLimit(deps.cache, LIMITS.loginPerAccount, account.emailNormalized);
  const { valid, rehash } = await verifyPassword(account.passwordHash, password);
  if (!valid) {
    await recordFailure(deps, account.emailNormalized, client.ip);
    throw new AppError('UNAUTHENTICATED', 'The current password is incorrect.');
  }
  if (rehash) await deps.db.account.update({ where: { id: account.id }, data: { passwordHash: rehash } });
  const { passwordHash: _omit, ...rest } = account;
  return rest;
}
