// When a revocation cannot reach the shared cache (Redis unreachable), its tombstone is lost and
// the old cache entry would answer again once Redis is back. So the revocation bumps an epoch
// in the database instead, and a cached session is trusted only while it was cached under the
// current epoch: when in doubt, the database answers. Every instance reads the epoch at most
// once a second (one indexed read), so a bump reaches all of them within a second; and an
// instance whose cache was unreachable reads it again once the cache answers, before it trusts
// an entry read from it: a bump made during the outage is then always seen (current's `since`).
import type { Db } from '../store.js';
import { bumpRevocationEpoch, readRevocationEpoch } from './store.js';

const REFRESH_MS = 1000;

export class RevocationEpoch {
  private value = -1;
  /** When the last successful read (or bump) of the epoch started, performance.now(). */
  private readFrom = Number.NEGATIVE_INFINITY;
  /** When a read last failed: the database is asked again only a refresh interval later. */
  private failedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | null = null;
  private loadingFrom = Number.NEGATIVE_INFINITY;

  constructor(private readonly db: Db) {}

  /**
   * The current epoch, as read from the database at most a refresh interval ago and not before
   * `since` (performance.now()): the caller's cache answered again at `since` after an outage,
   * and an entry it read there may predate a revocation that bumped the epoch during the outage,
   * so an epoch read before then must not vouch for it. -1 when no such read can be had: before
   * the database has answered once, or while it fails to answer after `since`; nothing cached is
   * trusted then. While the database cannot be asked, the last value read stands for a `since`
   * it was read after: no revocation can commit then either (it deletes rows).
   */
  current(since = 0): number | Promise<number> {
    const now = performance.now();
    if (this.readFrom >= since && now - this.readFrom < REFRESH_MS) return this.value;
    // since is Infinity while the cache is unreachable: no read can be after it.
    if (since > now || now - this.failedAt < REFRESH_MS) return this.standing(since);
    // A read under way serves only the callers whose cache answered before it started.
    if (!this.loading || this.loadingFrom < since) {
      const loading = this.load(now).finally(() => {
        if (this.loading === loading) this.loading = null;
      });
      this.loading = loading;
      this.loadingFrom = now;
    }
    return this.loading.then(() => this.standing(since));
  }

  /** The last value read, if it was read after `since`; -1 (unknown) otherwise. */
  private standing(since: number): number {
    return this.readFrom >= since ? this.value : -1;
  }

  private async load(from: number): Promise<void> {
    try {
      this.observe(Number((await readRevocationEpoch(this.db)) ?? 0), from);
    } catch {
      // Keep the last value; ask again after the refresh interval, not on every request.
      this.failedAt = performance.now();
    }
  }

  /**
   * A value read by a read that started at `from`. Epochs only grow: a slower read that started
   * earlier takes neither the value nor its time back.
   */
  private observe(epoch: number, from: number): void {
    if (epoch > this.value) this.value = epoch;
    if (from > this.readFrom) this.readFrom = from;
  }

  async bump(): Promise<void> {
    const from = performance.now();
    const epoch = await bumpRevocationEpoch(this.db);
    this.observe(epoch === null ? this.value + 1 : Number(epoch), from);
  }
}

const epochs = new WeakMap<Db, RevocationEpoch>();

/** One epoch reader per database client (per app instance). */
export function revocationEpoch(db: Db): RevocationEpoch {
  let e = epochs.get(db);
  if (!e) epochs.set(db, (e = new RevocationEpoch(db)));
  return e;
}
