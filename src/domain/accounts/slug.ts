// Account slugs (SPEC section 8): 3 to 28 characters of [a-z0-9-], no leading or trailing
// hyphen, no "--" (it separates subdomain and slug in tunnel hosts), no reserved label.
import { randomBytes } from 'node:crypto';
import { invalidInput, PROBLEMS } from '../errors.js';

export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'api', 'www', 'admin', 'login', 'logout', 'signup', 'dashboard', 'status', 'mail', 'email', 'app', 'auth',
  'docs', 'help', 'support', 'static', 'assets', 'cdn', 'blog', 'account', 'accounts', 'settings', 'billing',
  'oauth', 'sso', 'internal', 'metrics', 'health', 'healthz', 'root', 'system', 'security', 'abuse', 'postmaster',
  'webmaster', 'hostmaster', 'noreply', 'no-reply', 'ftp', 'smtp', 'imap', 'pop', 'ns', 'ns1', 'ns2', 'mx',
]);

export type SlugProblem = 'length' | 'characters' | 'hyphens' | 'reserved';

export function slugProblem(slug: string): SlugProblem | null {
  if (slug.length < 3 || slug.length > 28) return 'length';
  if (!/^[a-z0-9-]+$/.test(slug)) return 'characters';
  if (slug.startsWith('-') || slug.endsWith('-') || slug.includes('--')) return 'hyphens';
  if (RESERVED_SLUGS.has(slug)) return 'reserved';
  return null;
}

const MESSAGES: Record<SlugProblem, string> = {
  length: 'The slug must be 3 to 28 characters long.',
  characters: 'The slug may contain only lowercase letters, digits and hyphens.',
  hyphens: 'The slug cannot start or end with a hyphen or contain "--".',
  reserved: 'That slug is reserved.',
};

export function assertValidSlug(slug: unknown): asserts slug is string {
  if (typeof slug !== 'string') throw invalidInput(PROBLEMS.invalidSlug, 'slug', MESSAGES.characters);
  const problem = slugProblem(slug);
  if (problem) throw invalidInput(PROBLEMS.invalidSlug, 'slug', MESSAGES[problem]);
}

/** A valid base slug from the email's local part; uniqueness is the caller's (see candidates). */
export function slugBaseFromEmail(email: string): string {
  const local = (email.split('@')[0] ?? '').toLowerCase().split('+')[0] ?? '';
  let base = local
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 20)
    .replace(/-$/, '');
  if (base.length < 3) base = `user${base ? `-${base}` : ''}`;
  if (RESERVED_SLUGS.has(base)) base = `${base}-user`;
  return base;
}

/** Candidates in order: the base, then the base with a random suffix; every one is valid. */
export function* slugCandidates(email: string): Generator<string> {
  const base = slugBaseFromEmail(email);
  yield base;
  for (;;) {
    const suffix = randomBytes(3).toString('hex').slice(0, 4 + Math.floor(Math.random() * 2));
    yield `${base}-${suffix}`;
  }
}
