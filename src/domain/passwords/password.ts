// argon2id hashing. The server's cost is OWASP's argon2id minimum (19 MiB, 2 passes, 1 lane); a
// stored hash made with other parameters is re-hashed at the next successful sign-in.
import { availableParallelism } from 'node:os';
import argon2 from 'argon2';
import { invalidInput, PROBLEMS } from '../errors.js';

/** argon2id's cost: memory in KiB and passes. */
export interface Argon2Cost {
  memoryCost: number;
  timeCost: number;
}

/** OWASP's argon2id minimum: what every server hashes with (nothing in the environment lowers it). */
export const OWASP_ARGON2ID: Argon2Cost = { memoryCost: 19_456, timeCost: 2 };

/** argon2's options for a cost: argon2id, one lane, an encoded (PHC) string. */
export function argon2Options(cost: Argon2Cost = OWASP_ARGON2ID): argon2.HashOptions & { raw?: false } {
  return { type: argon2.argon2id, memoryCost: cost.memoryCost, timeCost: cost.timeCost, parallelism: 1 };
}

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

export interface PasswordCheck {
  valid: boolean;
  /** A fresh hash to store when the stored one used outdated parameters. */
  rehash: string | null;
}

/**
 * Hashes and verifies passwords at one cost. The server's is OWASP_ARGON2ID; only code can choose
 * another (the in-process test servers take a cheaper one: docs/testing.md).
 */
export class PasswordHasher {
  private readonly options: argon2.HashOptions & { raw?: false };
  private dummyHash: Promise<string> | null = null;

  constructor(cost: Argon2Cost = OWASP_ARGON2ID) {
    this.options = argon2Options(cost);
  }

  hash(password: string): Promise<string> {
    return inTurn(() => argon2.hash(password, this.options));
  }

  async verify(hash: string, password: string): Promise<PasswordCheck> {
    const valid = await inTurn(() => argon2.verify(hash, password)).catch(() => false);
    if (!valid) return { valid, rehash: null };
    const rehash = argon2.needsRehash(hash, this.options) ? await this.hash(password) : null;
    return { valid, rehash };
  }

  /** Spends the same time as a real verification, so an unknown email is not told by timing. */
  async burn(password: string): Promise<void> {
    this.dummyHash ??= this.hash('not-a-real-password-used-for-timing');
    const dummy = await this.dummyHash;
    await inTurn(() => argon2.verify(dummy, password)).catch(() => false);
  }
}
