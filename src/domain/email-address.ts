// Email addresses (API.md section 3): at most 254 characters, local part at most 64, stored as
// given, compared case-insensitively through the normalized (lowercased) form.
import { invalidInput, PROBLEMS } from './errors.js';

// Pragmatic shape check: one @, a dot-atom-ish local part of ASCII atext (RFC 5321; the same set
// the GraphQL EmailAddress scalar serializes, so an accepted address can always be answered), a
// domain with at least one dot.
const SHAPE = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i;

const hasControlCharacter = (s: string) => [...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/** PostgreSQL text cannot hold NUL, so such a value can match no stored row (and must not reach a query). */
export const hasNul = (s: string): boolean => s.includes('\u0000');

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Returns the address trimmed, or throws BAD_REQUEST about `field` (the input that held it). */
export function parseEmail(raw: string, field = 'email'): string {
  const email = raw.trim();
  const at = email.lastIndexOf('@');
  if (email.length > 254 || at < 1 || at > 64 || !SHAPE.test(email) || hasControlCharacter(email)) {
    throw invalidInput(PROBLEMS.invalidEmail, field, 'Enter a valid email address.');
  }
  return email;
}
