// Fixed-window limits kept in the cache, so every instance counts against the same numbers.
import { orFallback, type Cache } from '../../infra/cache/cache.js';
import { rateLimited } from '../errors.js';

export interface Limit {
  name: string;
  max: number;
  windowMs: number;
}

export const LIMITS = {
  /** Failed sign-ins per account (email), then 429 until the window ends. */
  loginPerAccount: { name: 'login-account', max: 10, windowMs: 15 * 60_000 },
  /** Failed sign-ins per client IP, across accounts. */
  loginPerIp: { name: 'login-ip', max: 50, windowMs: 15 * 60_000 },
  resendVerification: { name: 'resend-verification', max: 5, windowMs: 15 * 60_000 },
  /** Reset emails per address; past it forgot-password still answers 204 but sends nothing. */
  forgotPassword: { name: 'forgot-password', max: 5, windowMs: 15 * 60_000 },
  /** Confirm-email-change and verify attempts are single-use tokens; no limit needed. */
} satisfies Record<string, Limit>;

const key = (limit: Limit, subject: string) => `rl:${limit.name}:${subject}`;

// Limits fail open (orFallback): while the cache is unreachable, sign-in keeps working (the
// database and argon2 still bound an attacker's rate) rather than locking every user out.

/** Throws RATE_LIMITED (with Retry-After) when the counter is already at its maximum; else returns the count. */
export async function assertUnderLimit(cache: Cache, limit: Limit, subject: string): Promise<number> {
  const current = await orFallback(cache.peek(key(limit, subject)), null);
  if (current && current.count >= limit.max) throw rateLimited(Math.max(1, Math.ceil(current.resetMs / 1000)));
  return current?.count ?? 0;
}

/** Counts one event; returns false (and counts nothing more) once the window's maximum is passed. */
export async function consume(cache: Cache, limit: Limit, subject: string): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
  const { count, resetMs } = await orFallback(cache.hit(key(limit, subject), limit.windowMs), { count: 0, resetMs: 0 });
  return { allowed: count <= limit.max, retryAfterSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
}

export async function resetLimit(cache: Cache, limit: Limit, subject: string): Promise<void> {
  await orFallback(cache.del(key(limit, subject)), undefined);
}
