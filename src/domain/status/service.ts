// When the roll-up is refreshed: at most once per 10 s across every instance. Three layers:
//   1. a local copy of the current roll-up, served synchronously (the hot path: no I/O at all);
//   2. the shared cache (Redis when configured), so instances adopt each other's refresh;
//   3. single flight: one refresh in flight per instance, and across instances a short lock in
//      the shared cache; the others wait for the winner's result instead of probing too.
// Freshness is judged on the injected clock against checked_at, so tests move time, not sleep.
import { randomUUID } from 'node:crypto';
import { ageOf, refreshRollup, type Rollup, type StatusDeps } from './rollup.js';
import { renderSnapshot, type Snapshot } from './render.js';

export const ROLLUP_TTL_MS = 10_000;
export const ROLLUP_KEY = 'status:rollup';
export const LOCK_KEY = 'status:rollup:lock';
/** Longer than two bounded probes, so a live winner never loses the lock mid-refresh. */
const LOCK_TTL_MS = 5_000;
const WAIT_STEP_MS = 25;

export class StatusService {
  private snapshot: Snapshot | null = null;
  private inflight: Promise<Snapshot> | null = null;
  private readonly id = randomUUID();

  constructor(private readonly deps: StatusDeps) {}

  /** The current snapshot when still inside its window, without any I/O. */
  fresh(): Snapshot | null {
    const s = this.snapshot;
    return s !== null && this.deps.clock().getTime() < s.expiresAtMs ? s : null;
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

  private async load(): Promise<Snapshot> {
    const shared = await this.readShared();
    if (shared) return this.adopt(shared);
    if (await this.tryLock()) {
      try {
        return this.adopt(await this.refreshAndShare());
      } finally {
        await this.unlock();
      }
    }
    // Another instance is probing: wait for its result, bounded by the probes' own bound.
    const deadline = Date.now() + LOCK_TTL_MS;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
      const result = await this.readShared();
      if (result) return this.adopt(result);
    }
    // The winner died or the cache is gone: answer from our own probes rather than fail.
    return this.adopt(await this.refreshAndShare());
  }

  private adopt(rollup: Rollup): Snapshot {
    const snapshot = renderSnapshot(rollup, Date.parse(rollup.checked_at) + ROLLUP_TTL_MS, this.deps.config.serviceName);
    this.snapshot = snapshot;
    return snapshot;
  }

  private async refreshAndShare(): Promise<Rollup> {
    const rollup = await refreshRollup(this.deps);
    try {
      await this.deps.cache.set(ROLLUP_KEY, JSON.stringify(rollup), ROLLUP_TTL_MS);
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'status roll-up not shared: cache unavailable');
    }
    return rollup;
  }

  /** The shared roll-up if another instance (or we) refreshed it inside the window. */
  private async readShared(): Promise<Rollup | null> {
    try {
      const raw = await this.deps.cache.get(ROLLUP_KEY);
      if (!raw) return null;
      const rollup = JSON.parse(raw) as Rollup;
      const age = ageOf(rollup, this.deps.clock());
      return age < ROLLUP_TTL_MS ? rollup : null;
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

const services = new WeakMap<StatusDeps, StatusService>();

/** One service per deps (one per app instance), shared by /status and Query.status. */
export function statusService(deps: StatusDeps): StatusService {
  let service = services.get(deps);
  if (!service) {
    service = new StatusService(deps);
    services.set(deps, service);
  }
  return service;
}
