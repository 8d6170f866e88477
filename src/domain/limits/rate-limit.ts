// Fixed-window limits kept in the shared cache, so every instance counts against the same
// numbers. They never fail open: while the cache is unreachable, the same limits are counted in
// process (per instance) until it answers again.
import type { Cache } from '../../infra/cache/cache.js';
import { MemoryCache } from '../../infra/cache/memory.js';
import { PROBLEMS, rateLimited } from '../errors.js';

export interface Limit {
  name: string;
  max: number;
  windowMs: number;
}

const MINUTES_15 = 15 * 60_000;
const HOUR = 60 * 60_000;

export const LIMITS = {
  /** Password attempts per account from networks it has never signed in from (all of them together). */
  loginPerAccount: { name: 'login-account', max: 10, windowMs: MINUTES_15 },
  /** Password attempts per account from one network it has signed in from before: the owner's own budget. */
  loginPerKnownNetwork: { name: 'login-account-net', max: 10, windowMs: MINUTES_15 },
  /** Every password attempt on the account, wherever it comes from: stops distributed guessing. */
  loginAccountCeiling: { name: 'login-account-all', max: 50, windowMs: MINUTES_15 },
  /** Failed password attempts per client network, across accounts. */
  loginPerIp: { name: 'login-ip', max: 50, windowMs: MINUTES_15 },
  resendVerification: { name: 'resend-verification', max: 5, windowMs: MINUTES_15 },
  /** Reset emails per address; past it forgot-password still answers 204 but sends nothing. */
  forgotPassword: { name: 'forgot-password', max: 5, windowMs: MINUTES_15 },
  /** Accounts created per client network (each costs a password hash and an email). */
  signupPerIp: { name: 'signup-ip', max: 20, windowMs: 60 * 60_000 },
  /** Email-change requests per account (each costs a password hash and an email). */
  changeEmail: { name: 'change-email', max: 5, windowMs: MINUTES_15 },
  /**
   * Wrong second-step codes per account (sign-in, re-authentication, turning two-step off, new
   * recovery codes), whatever passwords or successes come between (API.md section 7a).
   */
  secondStepFailures: { name: 'second-step-failures', max: 10, windowMs: HOUR },
  /** User-code attempts on the device page per client network; a right code is taken back (API.md section 12). */
  deviceCodeGuesses: { name: 'device-code-guess', max: 10, windowMs: MINUTES_15 },
  /** Device authorization requests per client network (each writes a row). */
  deviceRequestsPerNetwork: { name: 'device-request', max: 30, windowMs: MINUTES_15 },
  /** Dynamic client registrations (API.md section 13a) per client network: cloud connectors share networks. */
  clientRegistrationsPerNetwork: { name: 'oauth-register', max: 100, windowMs: HOUR },
  /** Authorization requests per client network (section 13a): each may store a pending request. */
  authorizationsPerNetwork: { name: 'oauth-authorize', max: 60, windowMs: 60_000 },
  /**
   * Deliveries an account asks for by hand (test events and manual retries): each makes this
   * server POST to the account's URL, so they are bounded like any other request for work.
   */
  webhookManualSends: { name: 'webhook-manual', max: 20, windowMs: MINUTES_15 },
  /** Status subscriptions asked for per client network (each may send a confirmation email). */
  statusSubscribePerNetwork: { name: 'status-subscribe-ip', max: 10, windowMs: HOUR },
  /** Confirmation emails per address; past it the answer is the same 202, nothing is sent. */
  statusSubscribePerAddress: { name: 'status-subscribe-address', max: 3, windowMs: 24 * HOUR },
  /** The mfa-failed notice: at most one per account per hour. */
  mfaFailedNotice: { name: 'mfa-failed-notice', max: 1, windowMs: HOUR },
  /** Invitations sent per organization (API.md section 18): each sends an email to an address the organization chose. */
  orgInvitations: { name: 'org-invitations', max: 20, windowMs: HOUR },
  /**
   * Invitations sent per inviting account, whichever of its organizations they are for: an
   * account that owns several (or makes and deletes them) sends no more than this.
   */
  invitationsPerInviter: { name: 'org-invitations-by', max: 40, windowMs: HOUR },
} satisfies Record<string, Limit>;

const key = (limit: Limit, subject: string) => `rl:${limit.name}:${subject}`;

// The in-process stand-in, one per cache (per app instance), used only while the cache fails.
const fallbacks = new WeakMap<Cache, MemoryCache>();
function fallbackOf(cache: Cache): MemoryCache {
  let local = fallbacks.get(cache);
  if (!local) fallbacks.set(cache, (local = new MemoryCache()));
  return local;
}

async function counted<T>(cache: Cache, op: (store: Cache) => Promise<T>): Promise<T> {
  try {
    return await op(cache);
  } catch {
    return op(fallbackOf(cache));
  }
}

const retryAfter = (resetMs: number) => Math.max(1, Math.ceil(resetMs / 1000));

/** Counts one event; `allowed` is false once the window's maximum is passed. */
export async function consume(cache: Cache, limit: Limit, subject: string): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
  const { count, resetMs } = await counted(cache, (c) => c.hit(key(limit, subject), limit.windowMs));
  return { allowed: count <= limit.max, retryAfterSeconds: retryAfter(resetMs) };
}

/** consume() on several limits at once: one round trip to the cache (one per slot on a cluster). */
export async function consumeAll(
  cache: Cache,
  events: readonly { limit: Limit; subject: string }[],
): Promise<{ allowed: boolean; count: number; retryAfterSeconds: number }[]> {
  const states = await counted(cache, (c) => c.hitMany(events.map(({ limit, subject }) => ({ key: key(limit, subject), windowMs: limit.windowMs }))));
  return states.map(({ count, resetMs }, i) => ({ allowed: count <= events[i]!.limit.max, count, retryAfterSeconds: retryAfter(resetMs) }));
}

/**
 * After a success, in one round trip: takes back one counted event from each of `refunds` (limits
 * that count failures only) and clears each of `resets`.
 */
export async function settleAll(
  cache: Cache,
  refunds: readonly { limit: Limit; subject: string }[],
  resets: readonly { limit: Limit; subject: string }[],
): Promise<void> {
  const keys = (list: readonly { limit: Limit; subject: string }[]) => list.map(({ limit, subject }) => key(limit, subject));
  await counted(cache, (c) => c.settleCounters(keys(refunds), keys(resets)));
}

/** Counts one event and throws RATE_LIMITED when it is past the maximum: reserve first, then act. */
export async function reserve(cache: Cache, limit: Limit, subject: string, message?: string): Promise<void> {
  const { allowed, retryAfterSeconds } = await consume(cache, limit, subject);
  if (!allowed) throw rateLimited(PROBLEMS.rateLimited, retryAfterSeconds, message);
}

export async function resetLimit(cache: Cache, limit: Limit, subject: string): Promise<void> {
  await counted(cache, (c) => c.del(key(limit, subject)));
}
