// User codes of the device authorization grant (API.md section 12, RFC 8628 section 6.1): 8
// letters from the RFC's 20-consonant alphabet (no vowels, so no words; no look-alikes), shown
// XXXX-XXXX. 20^8 ≈ 2.6·10^10 codes, a 10-minute life, and limits on wrong codes per network and
// across all networks (with a bound on the codes live at once: limits.ts) make guessing a live one
// hopeless. Case, dashes and spaces are ignored on entry.
import { randomInt } from 'node:crypto';

export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

const SHAPE = new RegExp(`^[${USER_CODE_ALPHABET}]{${USER_CODE_LENGTH}}$`);

/** A fresh code in its stored form (8 letters, no dash). */
export function generateUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** What a person typed, in the stored form; null when it cannot be a code (still a wrong guess). */
export function normaliseUserCode(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length > 32) return null;
  const code = raw.toUpperCase().replace(/[\s-]/g, '');
  return SHAPE.test(code) ? code : null;
}

/** XXXX-XXXX, as the device shows it. */
export const displayUserCode = (code: string): string => `${code.slice(0, 4)}-${code.slice(4)}`;
