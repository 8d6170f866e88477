// The one password check behind every place that asks for a password: login, the confirmation
// of a pending SSO link, and the current password asked again before a sensitive change. Each
// applies the same limits: failed attempts per account (its normalized email) and per client
// network; past either, 429 with Retry-After, even for the right password. A missing hash (an
// unknown email, an SSO-only account) still burns one, so timing does not tell; a failure counts
// against both limits; a success clears the account's counter.
import type { Cache } from '../../infra/cache/cache.js';
import type { ClientInfo } from '../context.js';
import type { AppError } from '../errors.js';
import { networkOf } from '../sessions/network.js';
import { burnPasswordHash, verifyPassword } from './password.js';
import { LIMITS, assertUnderLimit, consume, resetLimit } from './rate-limit.js';

export interface PasswordSubject {
  /** The account's normalized email (or the typed one, for an unknown address). */
  emailKey: string;
  passwordHash: string | null;
}

/** Per-IP limits count per network (/24, /48): one client hopping addresses is one client. */
const ipSubject = (ip: string) => networkOf(ip) ?? ip;

/**
 * Verifies `password` against the subject's hash under the sign-in limits. Throws `wrong()` when
 * it does not match, RATE_LIMITED past a limit; returns a new hash to store when the stored one
 * used outdated parameters (null otherwise).
 */
export async function checkPassword(
  deps: { cache: Cache },
  subject: PasswordSubject,
  password: string,
  client: ClientInfo,
  wrong: () => AppError,
): Promise<string | null> {
  const [failures] = await Promise.all([
    assertUnderLimit(deps.cache, LIMITS.loginPerAccount, subject.emailKey),
    assertUnderLimit(deps.cache, LIMITS.loginPerIp, ipSubject(client.ip)),
  ]);
  const check = subject.passwordHash
    ? await verifyPassword(subject.passwordHash, password)
    : (await burnPasswordHash(password), { valid: false, rehash: null });
  if (!check.valid) {
    await Promise.all([
      consume(deps.cache, LIMITS.loginPerAccount, subject.emailKey),
      consume(deps.cache, LIMITS.loginPerIp, ipSubject(client.ip)),
    ]);
    throw wrong();
  }
  if (failures > 0) await resetLimit(deps.cache, LIMITS.loginPerAccount, subject.emailKey);
  return check.rehash;
}
