// Breached passwords (API.md section 9): a new password found in the Pwned Passwords range API is
// refused. k-anonymity: only the first 5 hex characters of the password's SHA-1 leave the
// process, with `Add-Padding: true` so that the answer's size does not tell the prefix either;
// the suffix is matched here, ignoring the padding entries (count 0). The check is bounded at
// 2 s and fails open: a service that cannot answer never blocks a sign-up, it is logged (the
// reason only, no password material) and counted.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { invalidInput, PROBLEMS } from '../errors.js';

export const BREACH_CHECK_TIMEOUT_MS = 2_000;
/** A padded range answer is ~1000 lines of 40 bytes; anything far larger is not one. */
const MAX_BODY_BYTES = 1 << 20;

/** True when the password appears in a breach; false when not, or when the check could not be made. */
export type BreachedPasswordCheck = (password: string) => Promise<boolean>;

export type BreachCheckFailure = 'timeout' | 'unreachable' | 'bad_status' | 'bad_body';

/** `field`: the input that held the new password (`password` at sign-up, else `newPassword`). */
export const breachedPassword = (field = 'password') => invalidInput(PROBLEMS.breachedPassword, field, 'This password has appeared in a data breach. Choose another one.');

export function createBreachedPasswordCheck(opts: {
  /** The range API address the 5 characters are appended to; null: the check is off. */
  url: string | null;
  logger: Logger;
  /** Counts a check that failed open (the metric). */
  onFailOpen: (reason: BreachCheckFailure) => void;
  timeoutMs?: number;
}): BreachedPasswordCheck {
  const { url, logger, onFailOpen } = opts;
  const timeoutMs = opts.timeoutMs ?? BREACH_CHECK_TIMEOUT_MS;
  if (url === null) return async () => false;
  const failOpen = (reason: BreachCheckFailure, status?: number): false => {
    logger.warn({ reason, ...(status ? { status } : {}) }, 'breached-password check failed open');
    onFailOpen(reason);
    return false;
  };
  return async (password) => {
    const hash = createHash('sha1').update(password, 'utf8').digest('hex').toUpperCase();
    const prefix = hash.slice(0, 5);
    const suffix = hash.slice(5);
    const signal = AbortSignal.timeout(timeoutMs);
    let body: string;
    try {
      const res = await fetch(url + prefix, { headers: { 'add-padding': 'true', accept: 'text/plain' }, signal, redirect: 'error' });
      if (!res.ok) {
        await res.body?.cancel().catch(() => {});
        return failOpen('bad_status', res.status);
      }
      body = await res.text();
    } catch {
      return failOpen(signal.aborted ? 'timeout' : 'unreachable');
    }
    if (body.length > MAX_BODY_BYTES) return failOpen('bad_body');
    for (const line of body.split('\n')) {
      const [candidate, count] = line.trim().split(':');
      if (candidate?.toUpperCase() === suffix && Number(count) > 0) return true;
    }
    return false;
  };
}

/** Throws 400 with the fixed detail when the password is known to be breached. */
export async function assertNotBreached(deps: { breachedPasswords: BreachedPasswordCheck }, password: string, field = 'password'): Promise<void> {
  if (await deps.breachedPasswords(password)) throw breachedPassword(field);
}
