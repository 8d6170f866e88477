// When a revocation cannot reach the shared cache (Redis unreachable), its tombstone is lost and
// the old cache entry would answer again once Redis is back. So the revocation bumps an epoch
// in the database instead, and a cached session is trusted only while it was cached under the
// current epoch: when in doubt, the database answers. Every instance reads the epoch at most
// once a second (one indexed read), so a bump reaches all of them within a second.
import type { Db } from '../store.js';
import { bumpRevocationEpoch, readRevocationEpoch } from './store.js';

const REFRESH_MS = 1000;

export class RevocationEpoch {
  private value = -1;
  private readAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<number> | null = null;

  constructor(private readonly db: Db) {}

  /**
   * The current epoch. While the database cannot be asked, the last one read stands: no
   * revocation can commit then either (it deletes rows). -1 before any successful read, so
   * nothing cached is trusted until the database has answered once.
   */
  current(): number | Promise<number> {
    if (performance.now() - this.readAt < REFRESH_MS) return this.value;
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async load(): Promise<number> {
    try {
      this.value = Number((await readRevocationEpoch(this.db)) ?? 0);
      this.readAt = performance.now();
    } catch {
      // Keep the last value; ask again after the refresh interval, not on every request.
      this.readAt = performance.now();
    }
    return this.value;
  }

  async bump(): Promise<void> {
    const epoch = await bumpRevocationEpoch(this.db);
    this.value = epoch === null ? this.value + 1 : Number(epoch);
    this.readAt = performance.now();
  }
}

const epochs = new WeakMap<Db, RevocationEpoch>();

/** One epoch reader per database client (per app instance). */
export function revocationEpoch(db: Db): RevocationEpoch {
  let e = epochs.get(db);
  if (!e) epochs.set(db, (e = new RevocationEpoch(db)));
  return e;
}
