// Secret credentials (session tokens, email link tokens, pending-link tokens): 20 random bytes,
// base32 on the wire, only the SHA-256 stored. Lookups hash the presented value.
import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from '@oslojs/encoding';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const encoder = new TextEncoder();

export function generateToken(bytes = 20): string {
  return encodeBase32LowerCaseNoPadding(randomBytes(bytes));
}

export function hashToken(token: string): string {
  return encodeHexLowerCase(sha256(encoder.encode(token)));
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
