// Secret credentials (session tokens, email link tokens, pending-link tokens): 20 random bytes,
// base32 on the wire, only the SHA-256 stored. Lookups hash the presented value.
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function generateToken(bytes = 20): string {
  return encodeBase32LowerCaseNoPadding(randomBytes(bytes));
}

/** Hex SHA-256 of the token's UTF-8 bytes (node's native hash: a third of the pure-JS one's time). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A presented token worth hashing: base32 of the expected length; anything else cannot match. */
export function isWellFormedToken(token: unknown): token is string {
  return typeof token === 'string' && /^[a-z2-7]{32}$/.test(token);
}

/** Constant-time comparison of a presented secret (e.g. an Authorization header) with the expected one. */
export function sameSecret(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
