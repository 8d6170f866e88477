// Random bytes for secrets and identifiers, drawn from the CSPRNG 4 KiB at a time (as node's own
// randomUUID does). Each randomBytes or getRandomValues call is a native crypto job of its own (an
// object, the DRBG's state lock), which a busy process pays on its main thread for every token and
// UUID of a sign-in; a copy out of the pool costs almost nothing. Each byte is handed out once:
// the pool is refilled before any byte would be reused.
import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let poolOffset = POOL_BYTES;

/** `n` fresh random bytes, valid until the next call (copy them to keep them). */
export function randomView(n: number): Uint8Array {
  if (n > POOL_BYTES) return randomFillSync(Buffer.allocUnsafe(n));
  if (poolOffset + n > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const view = pool.subarray(poolOffset, poolOffset + n);
  poolOffset += n;
  return view;
}

/**
 * A UUIDv7: the millisecond, then random bits from the pool (uuid's `random` option; its own
 * source calls getRandomValues once per id). Ids made in the same millisecond sort in no
 * particular order among themselves; across milliseconds they sort by time, which is what keeps
 * an index's inserts on its right-most page.
 */
export function timeOrderedUuid(): string {
  return v7({ random: randomView(16) });
}
