// The minute's write of last_seen_at (and the sliding expiry) that a cold session check finds
// due, written behind the request: the check only reads, and every instance writes the touches it
// collected once a second in one statement. A PostgreSQL round trip is the most expensive thing a
// cold check does (waking a backend, a random heap page dirtied, a commit), so many of them share
// one. The write is an update, never an upsert (a revoked, deleted session stays deleted), and
// never moves last_seen_at backwards. At most a second of touches is lost when the process dies;
// the next use writes them again.
import type { Logger } from 'pino';
import type { Sql } from '../store.js';
import { touchSessionRows } from './store.js';

/** How long a touch waits to share its statement. */
export const TOUCH_FLUSH_MS = 1000;
/** Rows per statement. */
const BATCH = 1000;
/** While the database cannot take them, at most this many touches wait (the newest are kept). */
const MAX_PENDING = 100_000;

interface Touch {
  at: Date;
  slidingExpiry: Date;
}

export interface SessionTouchesOptions {
  sql: Sql;
  logger: Pick<Logger, 'warn'>;
  absoluteLifetimeMs: number;
  expiryStepMs: number;
  flushMs?: number;
}

export class SessionTouches {
  private pending = new Map<string, Touch>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly opts: SessionTouchesOptions) {}

  /** Queues the touch of a session (a later one for the same session replaces it). */
  add(sessionId: string, at: Date, slidingExpiry: Date): void {
    if (this.pending.size >= MAX_PENDING && !this.pending.has(sessionId)) return;
    this.pending.set(sessionId, { at, slidingExpiry });
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.closed || this.pending.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.opts.flushMs ?? TOUCH_FLUSH_MS);
    this.timer.unref();
  }

  /** How many touches wait. */
  get size(): number {
    return this.pending.size;
  }

  /** Writes every queued touch now (tests; shutdown). A failed batch waits for the next flush. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.write(batch).finally(() => {
      this.flushing = null;
    });
    await this.flushing;
  }

  private async write(batch: Map<string, Touch>): Promise<void> {
    // Sorted ids: instances flushing overlapping sets lock the rows in the same order (no deadlock).
    const ids = [...batch.keys()].sort();
    for (let i = 0; i < ids.length; i += BATCH) {
      const chunk = ids.slice(i, i + BATCH);
      try {
        await touchSessionRows(
          this.opts.sql,
          chunk,
          chunk.map((id) => batch.get(id)!.at),
          chunk.map((id) => batch.get(id)!.slidingExpiry),
          this.opts.absoluteLifetimeMs,
          this.opts.expiryStepMs,
        );
      } catch (err) {
        this.opts.logger.warn({ err: (err as Error).message, touches: ids.length - i }, 'session touches not written; retried with the next flush');
        for (const id of ids.slice(i)) if (!this.pending.has(id) && this.pending.size < MAX_PENDING) this.pending.set(id, batch.get(id)!);
        this.schedule();
        return;
      }
    }
  }

  /** Writes what is queued and stops the timer (shutdown, before the database closes). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}
