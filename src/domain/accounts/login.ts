// POST /auth/login. An unknown email answers exactly like a wrong password (status, body, and
// timing: a hash is burned). Failures count per account and per client IP; past either limit the
// answer is 429 with Retry-After, even for the right password.
import { AppError } from '../errors.js';
import { issueSignIn, type SignedIn } from '../sessions/sign-in.js';
import type { AccountsDeps, ClientInfo } from '../context.js';
import { hasNul, normalizeEmail } from './email-address.js';
import { networkOf } from '../sessions/network.js';
import { burnPasswordHash, verifyPassword } from './password.js';
import { LIMITS, assertUnderLimit, consume, resetLimit } from './rate-limit.js';

export const wrongCredentials = () => new AppError('UNAUTHENTICATED', 'Incorrect email or password.');

const ipSubject = (ip: string) => networkOf(ip) ?? ip;

export async function login(
  deps: AccountsDeps,
  input: { email: string; password: string },
  client: ClientInfo,
): Promise<SignedIn> {
  const emailKey = normalizeEmail(input.email).slice(0, 320);
  const [failures] = await Promise.all([
    assertUnderLimit(deps.cache, LIMITS.loginPerAccount, emailKey),
    assertUnderLimit(deps.cache, LIMITS.loginPerIp, ipSubject(client.ip)),
  ]);
  const account = hasNul(emailKey)
    ? null
    : await deps.db.account.findUnique({
        where: { emailNormalized: emailKey },
        select: { id: true, email: true, emailVerified: true, passwordHash: true },
      });
  const check = account?.passwordHash
    ? await verifyPassword(account.passwordHash, input.password)
    : (await burnPasswordHash(input.password), { valid: false, rehash: null });
  if (!account || !check.valid) {
    await recordFailure(deps, emailKey, client.ip);
    throw wrongCredentials();
  }
  if (failures > 0) await resetLimit(deps.cache, LIMITS.loginPerAccount, emailKey);
  const rehash = check.rehash;
  return issueSignIn(
    deps,
    account,
    client,
    rehash ? (tx) => tx.account.update({ where: { id: account.id }, data: { passwordHash: rehash } }).then(() => {}) : undefined,
  );
}

/** Counts a failed password check (login, or a confirmation that needs the current password). */
export async function recordFailure(deps: AccountsDeps, emailKey: string, ip: string): Promise<void> {
  await consume(deps.cache, LIMITS.loginPerAccount, emailKey);
  await consume(deps.cache, LIMITS.loginPerIp, ipSubject(ip));
}
