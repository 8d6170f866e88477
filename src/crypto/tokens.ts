// Secret credentials (session tokens, email link tokens, pending-link tokens): 20 random bytes,
// base32 on the wire, only the SHA-256 stored. Lookups hash the presented value.
import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from '@oslojs/encoding';
import { randomBytes } from 'node:crypto';

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
