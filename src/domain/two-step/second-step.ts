// The second step's code, wherever it is asked (sign-in, turning two-step off): a 6-digit TOTP
// code or a recovery code. Reading it checks it against the secret without changing anything;
// using it, in the caller's transaction, makes it work once: a TOTP code only when its step is
// later than the last one used (one conditional UPDATE, so two requests with one code cannot
// both pass), a recovery code only while unused.
import type { Cipher } from '../../infra/crypto/cipher.js';
import { changeAccount, type AccountChange, type ChangeDeps } from '../activity/account-change.js';
import type { Tx } from '../store.js';
import { useTotpStep } from './store.js';
import { AppError, badRequest, PROBLEMS } from '../errors.js';
import { normalizeRecoveryCode, useRecoveryCode } from './recovery-codes.js';
import { matchTotpStep } from './totp.js';
import { decodeBase32IgnorePadding } from '@oslojs/encoding';

export type SecondStepCode = { kind: 'totp'; step: bigint } | { kind: 'recovery'; normalized: string };

export const wrongCodeAtSignIn = () => new AppError(PROBLEMS.wrongCodeAtSignIn, 'Incorrect code.');
export const wrongCode = () => badRequest(PROBLEMS.wrongCode, 'Incorrect code.');

/** The TOTP key from its sealed base32 text. */
export function openTotpKey(cipher: Cipher, sealed: string): Uint8Array {
  return decodeBase32IgnorePadding(cipher.open(sealed));
}

/** What `code` is, if it can pass: a TOTP code of a step within the skew, or a well-formed recovery code. */
export function readSecondStepCode(
  cipher: Cipher,
  totp: { secret: string; enabledAt: Date | null } | null,
  code: string,
  now: Date,
): SecondStepCode | null {
  const compact = code.replace(/\s/g, '');
  if (/^\d{6}$/.test(compact)) {
    if (!totp?.enabledAt) return null;
    const step = matchTotpStep(openTotpKey(cipher, totp.secret), compact, now);
    return step === null ? null : { kind: 'totp', step };
  }
  const normalized = normalizeRecoveryCode(code);
  return normalized ? { kind: 'recovery', normalized } : null;
}

/** Uses the code once, in `tx`; false when it was used already (a replay) or two-step is off. */
export async function useSecondStepCode(tx: Tx, accountId: string, code: SecondStepCode, now: Date): Promise<boolean> {
  if (code.kind === 'recovery') return useRecoveryCode(tx, accountId, code.normalized, now);
  return useTotpStep(tx, accountId, code.step);
}

/** Thrown inside a transaction to roll it back when the code was spent meanwhile (a replay). */
export class SpentCode extends Error {}

/**
 * Uses the code and runs `work` in one change of the account (activity/account-change.ts); null
 * (nothing committed) when there is no code or it was spent meanwhile: the caller counts that as
 * a wrong code.
 */
export async function withCodeUsed<T>(
  deps: ChangeDeps,
  accountId: string,
  code: SecondStepCode | null,
  now: Date,
  work: (tx: Tx, change: AccountChange) => Promise<T>,
): Promise<T | null> {
  if (!code) return null;
  try {
    return await changeAccount(deps, accountId, async (tx, change) => {
      if (!(await useSecondStepCode(tx, accountId, code, now))) throw new SpentCode();
      return work(tx, change);
    });
  } catch (err) {
    if (err instanceof SpentCode) return null;
    throw err;
  }
}
