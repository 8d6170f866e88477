// argon2id hashing. Parameters follow OWASP's argon2id minimum (19 MiB, 2 passes, 1 lane); a
// stored hash made with other parameters is re-hashed at the next successful sign-in.
import argon2 from 'argon2';
import { invalidInput } from '../errors.js';

export const HASH_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

/**
 * Throws BAD_REQUEST unless the password has 8 to 128 characters (code points). `field`: the
 * input that held it, `password` (sign-up) or `newPassword` (change, reset).
 */
export function assertPasswordLength(password: string, field: 'password' | 'newPassword' = 'password'): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    throw invalidInput(field, `The ${field === 'newPassword' ? 'new password' : 'password'} must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long.`);
  }
}

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, HASH_OPTIONS);
}

export interface PasswordCheck {
  valid: boolean;
  /** A fresh hash to store when the stored one used outdated parameters. */
  rehash: string | null;
}

export async function verifyPassword(hash: string, password: string): Promise<PasswordCheck> {
  const valid = await argon2.verify(hash, password).catch(() => false);
  if (!valid) return { valid, rehash: null };
  const rehash = argon2.needsRehash(hash, HASH_OPTIONS) ? await hashPassword(password) : null;
  return { valid, rehash };
}

let dummyHash: Promise<string> | null = null;

/** Spends the same time as a real verification, so an unknown email is not told by timing. */
export async function burnPasswordHash(password: string): Promise<void> {
  dummyHash ??= hashPassword('not-a-real-password-used-for-timing');
  await argon2.verify(await dummyHash, password).catch(() => false);
}
