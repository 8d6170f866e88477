// Who may reach a tunnel's /mcp (API.md section 13): `public` (anyone; the default) or `oauth`
// (a bearer token this server issued for the tunnel). `allowed_emails` names who besides the owner
// may be granted one: exact addresses or `@domain` entries (that domain exactly, not its
// subdomains), at most 100, stored lower-cased and without duplicates.
import { parseEmail } from '../email-address.js';
import { invalidInput, PROBLEMS } from '../errors.js';
import { isHostname } from './names.js';

export const TUNNEL_ACCESS = ['public', 'oauth'] as const;
export type TunnelAccess = (typeof TUNNEL_ACCESS)[number];
export const MAX_ALLOWED_EMAILS = 100;

export const accessRule = () => invalidInput(PROBLEMS.invalidTunnelSettings, 'access', 'Access is either "public" (anyone) or "oauth" (a sign-in through this service first).');

export function parseAccess(raw: unknown): TunnelAccess {
  if (raw === 'public' || raw === 'oauth') return raw;
  throw accessRule();
}

const notAList = () => invalidInput(PROBLEMS.invalidTunnelSettings, 'allowedEmails', 'Allow a list of email addresses and @domains.');

/** One entry: `someone@example.com` or `@example.com`, lower-cased. */
function parseEntry(raw: unknown): string {
  if (typeof raw !== 'string') throw notAList();
  const entry = raw.trim().toLowerCase();
  if (entry.startsWith('@')) {
    if (!isHostname(entry.slice(1))) throw invalidInput(PROBLEMS.invalidTunnelSettings, 'allowedEmails', `${JSON.stringify(raw)} is not a domain (write @example.com).`);
    return entry;
  }
  try {
    return parseEmail(entry);
  } catch {
    throw invalidInput(PROBLEMS.invalidTunnelSettings, 'allowedEmails', `${JSON.stringify(raw)} is not an email address or @domain.`);
  }
}

export function parseAllowedEmails(raw: unknown): string[] {
  if (!Array.isArray(raw)) throw notAList();
  const entries = [...new Set(raw.map(parseEntry))];
  if (entries.length > MAX_ALLOWED_EMAILS) throw invalidInput(PROBLEMS.invalidTunnelSettings, 'allowedEmails', `At most ${MAX_ALLOWED_EMAILS} addresses and @domains can be allowed.`);
  return entries;
}

/**
 * Whether the account may be granted access: the owner always may; a member of the owning
 * organization (`member`) and anyone matching an entry only with a proven address (API.md
 * sections 13a and 18): an unverified address could be anyone's.
 */
export function isAllowed(tunnel: { ownerId: string; allowedEmails: readonly string[] }, account: { id: string; email: string; emailVerified: boolean }, member = false): boolean {
  if (account.id === tunnel.ownerId) return true;
  if (!account.emailVerified) return false;
  if (member) return true;
  const email = account.email.toLowerCase();
  const at = email.lastIndexOf('@');
  return tunnel.allowedEmails.includes(email) || (at > 0 && tunnel.allowedEmails.includes(email.slice(at)));
}
