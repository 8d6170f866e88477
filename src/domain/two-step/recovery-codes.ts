// Recovery codes: ten single-use codes shown once when two-step sign-in is turned on (and on
// regeneration). Each is 80 random bits (16 base32 characters, typed in groups of four), so the
// SHA-256 kept of it is as safe as any other stored token hash.
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import { randomBytes } from 'node:crypto';
import { hashToken } from '../../infra/crypto/tokens.js';
import type { DbHandle, Tx } from '../store.js';
import { replaceRecoveryCodeHashes, useRecoveryCodeHash } from './store.js';

export const RECOVERY_CODE_COUNT = 10;

function newRecoveryCode(): string {
  const raw = encodeBase32LowerCaseNoPadding(randomBytes(10));
  return raw.match(/.{4}/g)!.join('-');
}

/** As typed: case, spaces and hyphens do not matter. Null when it cannot be a recovery code. */
export function normalizeRecoveryCode(input: string): string | null {
  const compact = input.replace(/[\s-]/g, '').toLowerCase();
  return /^[a-z2-7]{16}$/.test(compact) ? compact : null;
}

export const hashRecoveryCode = (normalized: string) => hashToken(`recovery:${normalized}`);

/** Voids every earlier code of the account and stores ten new ones; returns them (shown once). */
export async function replaceRecoveryCodes(tx: Tx, accountId: string, now: Date): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await replaceRecoveryCodeHashes(tx, accountId, codes.map((c) => hashRecoveryCode(normalizeRecoveryCode(c)!)), now);
  return codes;
}

/** Uses the code once: only the request that flips used_at succeeds. */
export function useRecoveryCode(tx: DbHandle, accountId: string, normalized: string, now: Date): Promise<boolean> {
  return useRecoveryCodeHash(tx, accountId, hashRecoveryCode(normalized), now);
}
