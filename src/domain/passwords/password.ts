// argon2id hashing. Parameters follow OWASP's argon2id minimum (19 MiB, 2 passes, 1 lane); a
// stored hash made with other parameters is re-hashed at the next successful sign-in.
import { availableParallelism } from 'node:os';
import argon2 from 'argon2';
import { invalidInput, PROBLEMS } from '../errors.js';

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
    throw invalidInput(PROBLEMS.invalidPassword, field, `The ${field === 'newPassword' ? 'new password' : 'password'} must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long.`);
  }
}

/**
 * How many argon2 computations run at once. They run on libuv's threads (4 unless
 * UV_THREADPOOL_SIZE says otherwise), each with its own 19 MiB buffer that the C allocator keeps
 * once freed. More at once than there are cores adds no throughput, only resident memory and
 * threads taken from DNS and file work; the rest wait their turn, in order.
 */
export const ARGON2_AT_ONCE = Math.max(1, Math.min(availableParallelism(), 4));
let running = 0;
const waiting: (() => void)[] = [];

/** argon2 computations under way (the gate's own count, for tests). */
export function argon2Running(): number {
  return running;
}

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running < ARGON2_AT_ONCE) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await work();
  } finally {
    // The slot passes straight to the next in line, or frees.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

export function hashPassword(password: string): Promise<string> {
  return inTurn(() => argon2.hash(password, HASH_OPTIONS));
}

export interface PasswordCheck {
  valid: boolean;
  /** A fresh hash to store when the stored one used outdated parameters. */
  rehash: string | null;
}

export async function verifyPassword(hash: string, password: string): Promise<PasswordCheck> {
  const valid = await inTurn(() => argon2.verify(hash, password)).catch(() => false);
  if (!valid) return { valid, rehash: null };
  const rehash = argon2.needsRehash(hash, HASH_OPTIONS) ? await hashPassword(password) : null;
  return { valid, rehash };
}

let dummyHash: Promise<string> | null = null;

/** Spends the same time as a real verification, so an unknown email is not told by timing. */
export async function burnPasswordHash(password: string): Promise<void> {
  dummyHash ??= hashPassword('not-a-real-password-used-for-timing');
  const dummy = await dummyHash;
  await inTurn(() => argon2.verify(dummy, password)).catch(() => false);
}
