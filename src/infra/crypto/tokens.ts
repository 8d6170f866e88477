// Secret credentials (session tokens, email link tokens, pending-link tokens): 20 random bytes,
// base32 on the wire, only the SHA-256 stored (a session token also carries its creation second,
// kept in its key). Lookups hash the presented value.
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomView } from './random.js';

export function generateToken(bytes = 20): string {
  return encodeBase32LowerCaseNoPadding(randomView(bytes));
}

/** Hex SHA-256 of the token's UTF-8 bytes (node's native hash: a third of the pure-JS one's time). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** base32hex (RFC 4648 section 7): its digits sort as the values they stand for. */
const SORTED_DIGITS = '0123456789abcdefghijklmnopqrstuv';
/** Characters of a time-ordered token's prefix: 40 bits of seconds (enough for 34,000 years). */
const TIME_CHARS = 8;

/**
 * A secret whose stored key sorts by when it was made: the second `at` in 8 base32hex characters,
 * then a token of 20 random bytes (generateToken: the secret, 160 bits as before). The key
 * (timeOrderedTokenKey) keeps that prefix, so a table's unique index on the keys grows on its
 * right-most page instead of on a random page of a large index. The prefix tells its holder
 * when the token was made, nothing about the secret.
 */
export function generateTimeOrderedToken(at: Date): string {
  let seconds = Math.floor(at.getTime() / 1000);
  let prefix = '';
  for (let i = 0; i < TIME_CHARS; i++) {
    prefix = SORTED_DIGITS[seconds % 32]! + prefix;
    seconds = Math.floor(seconds / 32);
  }
  return prefix + generateToken();
}

const TIME_ORDERED = /^[0-9a-v]{8}[a-z2-7]{32}$/;

/** A presented time-ordered token (generateTimeOrderedToken) or a plain one (generateToken); anything else cannot match. */
export function isWellFormedTimeOrderedToken(token: unknown): token is string {
  return typeof token === 'string' && (token.length === 32 ? isWellFormedToken(token) : TIME_ORDERED.test(token));
}

/**
 * The stored key of a well-formed token: for a time-ordered one, `t`, its time prefix and the
 * SHA-256 of the whole token (so every such key sorts after every plain hash, in time order); for
 * a plain one, its SHA-256 (hashToken), as stored before time-ordered tokens existed.
 */
export function timeOrderedTokenKey(token: string): string {
  return token.length === 32 ? hashToken(token) : `t${token.slice(0, TIME_CHARS)}${hashToken(token)}`;
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
