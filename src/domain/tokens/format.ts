// The service token's wire format (API.md section 12): `tsk_` + 32 random base62 characters + the
// CRC32 (IEEE) of those 32 characters in base62, most significant digit first, left-padded with
// `0` to 6 characters. A secret scanner recognises one by its prefix and checks the tail offline;
// a mistyped or truncated token is refused here without a cache or database read.
import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const TOKEN_PREFIX = 'tsk_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY = 32;
const CHECK = 6;
export const TOKEN_LENGTH = TOKEN_PREFIX.length + BODY + CHECK;
const SHAPE = /^tsk_[0-9A-Za-z]{38}$/;

/** A non-negative integer in base62, left-padded with '0' to `width`. */
export function base62(n: number, width: number): string {
  let out = '';
  let rest = n;
  do {
    out = ALPHABET[rest % 62]! + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  return out.padStart(width, '0');
}

const checksum = (body: string): string => base62(crc32(body), CHECK);

/** A new token: 32 characters from the CSPRNG (about 190 bits), then its checksum. */
export function generateServiceToken(): string {
  let body = '';
  for (let i = 0; i < BODY; i++) body += ALPHABET[randomInt(62)];
  return TOKEN_PREFIX + body + checksum(body);
}

/** Looks like a service token (prefix), whether or not it is well formed. */
export const isServiceTokenLike = (token: string): boolean => token.startsWith(TOKEN_PREFIX);

/** The right length, alphabet and checksum. */
export function isWellFormedServiceToken(token: string): boolean {
  if (token.length !== TOKEN_LENGTH || !SHAPE.test(token)) return false;
  const body = token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + BODY);
  return token.slice(TOKEN_PREFIX.length + BODY) === checksum(body);
}
