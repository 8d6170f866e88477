// When the roll-up is refreshed: at most once per 10 s across every instance. Three layers:
//   1. a local copy of the current roll-up, served synchronously (the hot path: no I/O at all);
//   2. the shared cache (Redis when configured), so instances adopt each other's refresh;
//   3. single flight: one refresh in flight per instance, and across instances a short lock in
//      the shared cache; the others wait for the winner's result instead of probing too.
// Freshness is judged on the injected clock against checked_at, so tests move time, not sleep.
// The instance that probed records the outcome in the history (once per probe, like the counter);
// every instance keeps the history it last read, and hands out a new snapshot when it reads a newer
// one. A snapshot object stands until it is replaced, so the HTTP adapter renders each one once.
import { randomUUID } from 'node:crypto';
import { PROBLEMS, unavailable } from '../errors.js';
import { millisOf } from '../clock.js';
import { withTimeout } from '../../infra/timeout.js';
import { throttled } from '../../infra/observability/log-throttle.js';
import type { Db } from '../store.js';
import { loadHistory, purgeHistory, recordChecks, type History } from './history.js';
import { readNotices, trackAutomaticIncidents } from './incidents.js';
import type { SubscriptionDeps } from './subscriptions.js';
import { ageOf, isUnconfigured, problemsOf, refreshRollup, type Rollup, type StatusDeps } from './rollup.js';

export const ROLLUP_TTL_MS = 10_000;
export const ROLLUP_KEY = 'status:rollup';
export const LOCK_KEY = 'status:rollup:lock';
/** Longer than two bounded probes, so a live winner never loses the lock mid-refresh. */
const LOCK_TTL_MS = 5_000;
const WAIT_STEP_MS = 25;
/** How long a refresh waits for the history write and read before answering without them. */
export const HISTORY_WAIT_MS = 1_000;
/** How long GET /status/history waits for the database before answering the last history read, or 503. */
const HISTORY_READ_BOUND_MS = 2_000;
const HISTORY_STEP_BOUND_MS = 10_000;
const PURGE_EVERY_MS = 3600 * 1000;
/** How long a refresh waits for the open incidents and maintenance before keeping the last ones read. */
const NOTICES_WAIT_MS = 1_000;

export interface StatusServiceDeps extends StatusDeps, Omit<SubscriptionDeps, 'config' | 'cache' | 'clock'> {
  db: Db;
  config: StatusDeps['config'] & SubscriptionDeps['config'];
}

/** The roll-up being served and the history last read with it; replaced, never changed. */
export interface Snapshot {
  readonly rollup: Rollup;
  /** Injected-clock time (ms) after which the roll-up must be refreshed. */
  readonly expiresAtMs: number;
  readonly history: History | null;
}

interface LoadedHistory {
  history: History;
  /** checked_at of the roll-up this instance held when the read started. */
  forCheckedAt: string | null;
}

export class StatusService {
  private snapshot: Snapshot | null = null;
  private inflight: Promise<Snapshot> | null = null;
  private readonly id = randomUUID();
  private history: LoadedHistory | null = null;
  /** History writes and reads, one at a time, in order. */
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;
  private readQueued: Promise<void> | null = null;
  private lastPurgeMs = -Infinity;
  /** problemsOf the last roll-up this instance refreshed; null before the first. */
  private lastProblems: string | null = null;
  private readonly warn: (msg: string, err: unknown) => void;

  /** The clock in milliseconds (no Date per request on the hot path). */
  private readonly nowMs: () => number;

  constructor(private readonly deps: StatusServiceDeps) {
    this.nowMs = millisOf(deps.clock);
    this.warn = throttled((msg: string, err: unknown) => deps.logger.warn({ err: (err as Error).message }, msg), 60_000);
    // Said once, at start: the refreshes leave an unconfigured component out of their warnings.
    if (!deps.config.brokerHealthUrl) {
      deps.logger.info({ component: 'broker' }, 'status: broker not configured (BROKER_HEALTH_URL unset); shown as "not configured", no incident');
    }
  }

  /** The current snapshot when still inside its window, without any I/O. */
  fresh(): Snapshot | null {
    const s = this.snapshot;
    return s !== null && this.nowMs() < s.expiresAtMs ? s : null;
  }

  /** The snapshot to answer with: the local one, the shared one, or a new refresh (once). */
  current(): Promise<Snapshot> {
    const s = this.fresh();
    if (s) return Promise.resolve(s);
    this.inflight ??= this.load().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  /** GET /status/history without I/O: the history read for the current roll-up, none pending. */
  freshHistory(): History | null {
    const s = this.fresh();
    const h = this.history;
    return s !== null && h !== null && this.pending === 0 && h.forCheckedAt === s.rollup.checked_at ? h.history : null;
  }

  /**
   * GET /status/history: after the current roll-up's own check is written (on this instance).
   * A database that does not answer within the bound leaves the last history read, if any.
   */
  async currentHistory(): Promise<History> {
    await this.current();
    const ready = this.freshHistory();
    if (ready) return ready;
    await withTimeout(this.readHistory(), HISTORY_READ_BOUND_MS, () => new Error('history timed out')).catch(() => {});
    if (!this.history) throw unavailable(PROBLEMS.historyUnavailable, 'The status history is not available right now.');
    return this.history.history;
  }

  /** Resolves once every history write and read queued so far is done. */
  async settled(): Promise<void> {
    await this.queue;
  }

  private async load(): Promise<Snapshot> {
    const shared = await this.readShared();
    if (shared) return this.adoptWithHistory(shared, false);
    if (await this.tryLock()) {
      let rollup: Rollup;
      try {
        // Read again under the lock: a winner may have shared its roll-up and let go of the lock
        // between the read above and this lock, and must not be followed by a second probe.
        const shared = await this.readShared();
        if (shared) return await this.adoptWithHistory(shared, false);
        rollup = await this.refreshAndShare();
      } finally {
        await this.unlock();
      }
      return this.adoptWithHistory(rollup, true);
    }
    // Another instance is probing: wait for its result, bounded by the probes' own bound.
    const deadline = Date.now() + LOCK_TTL_MS;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
      const result = await this.readShared();
      if (result) return this.adoptWithHistory(result, false);
    }
    // The winner died or the cache is gone: answer from our own probes rather than fail.
    return this.adoptWithHistory(await this.refreshAndShare(), true);
  }

  /**
   * Adopts the roll-up, then (bounded) records it when this instance probed and reads the history
   * again, so the page and /status/history show this check; past the bound they follow later.
   */
  private async adoptWithHistory(rollup: Rollup, probed: boolean): Promise<Snapshot> {
    const snapshot = this.adopt(rollup);
    if (probed) void this.enqueue(() => this.record(rollup));
    const read = this.readHistory();
    await withTimeout(read, HISTORY_WAIT_MS, () => new Error('history timed out')).catch(() => {});
    // A newer snapshot (this roll-up with the history just read) may have replaced it.
    return this.snapshot?.rollup === rollup ? this.snapshot : snapshot;
  }

  private adopt(rollup: Rollup): Snapshot {
    const snapshot: Snapshot = { rollup, expiresAtMs: Date.parse(rollup.checked_at) + ROLLUP_TTL_MS, history: this.history?.history ?? null };
    this.snapshot = snapshot;
    return snapshot;
  }

  private async record(rollup: Rollup): Promise<void> {
    await recordChecks(this.deps.db, rollup);
    // Once per probe across instances, like the history: streaks, and automatic incidents.
    const { opened, resolved } = await trackAutomaticIncidents(this.deps, rollup);
    if (opened.length > 0) this.deps.logger.warn({ components: opened }, 'automatic incident opened');
    if (resolved.length > 0) this.deps.logger.info({ components: resolved }, 'automatic incident resolved');
    const now = this.deps.clock();
    if (now.getTime() - this.lastPurgeMs >= PURGE_EVERY_MS) {
      this.lastPurgeMs = now.getTime();
      await purgeHistory(this.deps.db, now);
    }
  }

  /** Reads the history after every write queued so far; a read already queued is shared. */
  private readHistory(): Promise<void> {
    if (this.readQueued) return this.readQueued;
    const read = this.enqueue(async () => {
      this.readQueued = null;
      const forCheckedAt = this.snapshot?.rollup.checked_at ?? null;
      const history = await loadHistory(this.deps.db, this.deps.clock());
      this.history = { history, forCheckedAt };
      const s = this.snapshot;
      if (s) this.snapshot = { ...s, history };
    });
    this.readQueued = read;
    return read;
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.pending++;
    // Each step is bounded: a query that never returns must not stop the history for good.
    const run = this.queue.then(() => withTimeout(step(), HISTORY_STEP_BOUND_MS, () => new Error('timed out'))).catch((err: unknown) => {
      this.warn('status history not written or read: database unavailable', err);
    });
    this.queue = run.finally(() => {
      this.pending--;
    });
    return this.queue;
  }

  private async refreshAndShare(): Promise<Rollup> {
    const [probed, notices] = await Promise.all([refreshRollup(this.deps), this.readNotices()]);
    const rollup: Rollup = { ...probed, ...notices };
    this.logChange(rollup);
    try {
      await this.deps.cache.set(ROLLUP_KEY, JSON.stringify(rollup), ROLLUP_TTL_MS);
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'status roll-up not shared: cache unavailable');
    }
    return rollup;
  }

  /**
   * Open incidents and maintenance for the roll-up (API.md section 17), read once per refresh so
   * that /status never queries per request. A database that does not answer in time leaves the
   * ones the last roll-up carried: /status still answers, as the seed's contract wants.
   */
  private async readNotices(): Promise<Pick<Rollup, 'incidents' | 'maintenances'>> {
    try {
      return await withTimeout(readNotices(this.deps.db, this.deps.clock()), NOTICES_WAIT_MS, () => new Error('timed out'));
    } catch (err) {
      this.warn('status incidents not read: database unavailable', err);
      const last = this.snapshot?.rollup;
      return { incidents: last?.incidents ?? [], maintenances: last?.maintenances ?? [] };
    }
  }

  /** One line when what is wrong changes (and when it clears), not one per refresh. */
  private logChange(rollup: Rollup): void {
    const problems = problemsOf(rollup);
    if (problems === this.lastProblems) return;
    const before = this.lastProblems;
    this.lastProblems = problems;
    if (problems !== '') {
      this.deps.logger.warn({ components: rollup.components.filter((c) => !c.ok && !isUnconfigured(c)) }, 'status roll-up degraded');
    } else if (before !== null) {
      this.deps.logger.info({ was: before }, 'status roll-up ok again');
    }
  }

  /** The shared roll-up if another instance (or we) refreshed it inside the window. */
  private async readShared(): Promise<Rollup | null> {
    try {
      const raw = await this.deps.cache.get(ROLLUP_KEY);
      if (!raw) return null;
      const shared = JSON.parse(raw) as Rollup;
      const age = ageOf(shared, this.deps.clock());
      // A roll-up shared by an instance of an older version has no incidents or maintenance.
      return age < ROLLUP_TTL_MS ? { ...shared, incidents: shared.incidents ?? [], maintenances: shared.maintenances ?? [] } : null;
    } catch {
      return null;
    }
  }

  private async tryLock(): Promise<boolean> {
    try {
      return await this.deps.cache.setIfAbsent(LOCK_KEY, this.id, LOCK_TTL_MS);
    } catch {
      return true; // no shared cache: this instance probes for itself
    }
  }

  private async unlock(): Promise<void> {
    try {
      await this.deps.cache.del(LOCK_KEY);
    } catch {
      /* expires on its own */
    }
  }
}

const services = new WeakMap<StatusServiceDeps, StatusService>();

/** One service per deps (one per app instance), shared by /status, Query.status and the refresher. */
export function statusService(deps: StatusServiceDeps): StatusService {
  let service = services.get(deps);
  if (!service) {
    service = new StatusService(deps);
    services.set(deps, service);
  }
  return service;
}
