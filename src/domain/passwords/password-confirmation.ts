// The current password, asked again before sensitive changes (change email, change password,
// delete account). Wrong answers count against the same limits as sign-in attempts, so a stolen
// session cannot be used to guess the password.
import type { DomainDeps, ClientInfo } from '../context.js';
import { AppError, PROBLEMS, notSignedIn } from '../errors.js';
import { checkPassword } from './password-check.js';
import { readPasswordAccount, setPasswordHash } from './store.js';

/** What these flows use of the domain's dependencies. */
type FlowDeps = Pick<DomainDeps, 'cache' | 'db' | 'passwords'>;

export interface ConfirmedAccount {
  id: string;
  email: string;
  emailNormalized: string;
  slug: string;
}

const wrongCurrentPassword = () => new AppError(PROBLEMS.wrongPassword, 'The current password is incorrect.');

export async function confirmPassword(
  deps: FlowDeps,
  accountId: string,
  password: string,
  client: ClientInfo,
): Promise<ConfirmedAccount> {
  return confirm(deps, accountId, password, client, false);
}

/**
 * The password when the account has one; an account without a password (SSO only) has nothing
 * to give and passes (two-step setup, turning it off with a code, new recovery codes). An absent
 * password of an account that has one is a wrong one.
 */
export function confirmPasswordIfSet(
  deps: FlowDeps,
  accountId: string,
  password: string | null | undefined,
  client: ClientInfo,
): Promise<ConfirmedAccount> {
  return confirm(deps, accountId, password ?? '', client, true);
}

async function confirm(
  deps: FlowDeps,
  accountId: string,
  password: string,
  client: ClientInfo,
  passwordless: boolean,
): Promise<ConfirmedAccount> {
  const account = await readPasswordAccount(deps.db, accountId, client.ip);
  if (!account) throw notSignedIn();
  const { passwordHash, knownNetwork, ...rest } = account;
  if (!passwordHash) {
    if (passwordless) return rest;
    throw new AppError(PROBLEMS.wrongPassword, 'This account has no password yet. Set one with "Forgot password" first.');
  }
  const rehash = await checkPassword(deps, { emailKey: account.emailNormalized, passwordHash, knownNetwork }, password, client, wrongCurrentPassword);
  if (rehash) await setPasswordHash(deps.db, account.id, rehash);
  return rest;
}
