// The background refresh (API.md section 11): the roll-up is refreshed every 10 s without any
// request, so the history has no gaps when nobody looks, by exactly one instance per 10-second
// window. Every instance wakes at each window boundary of the clock and tries to take that
// window's lease in the shared cache (SET NX PX on `status:refresh:lease:<window>`); the one that
// sets it refreshes through the same single-flight path as a request (so it probes only when the
// roll-up has expired, and the counter and the history count each probe once), the others go
// back to sleep. A window's lease is never renewed or released: it expires two windows later.
// With the memory cache (one instance) the instance always takes it.
import { randomUUID } from 'node:crypto';
import { throttled } from '../../infra/observability/log-throttle.js';
import { ROLLUP_TTL_MS, statusService, type StatusService, type StatusServiceDeps } from './service.js';

export const REFRESH_INTERVAL_MS = ROLLUP_TTL_MS;
export const LEASE_KEY_PREFIX = 'status:refresh:lease:';
const LEASE_TTL_MS = 2 * REFRESH_INTERVAL_MS;
/** Wake a little after the boundary, so the previous window's roll-up has expired. */
const TICK_SLACK_MS = 5;
/** Longer than a refresh (2 s probes, 1 s history write): shutdown never waits on a hung database. */
const STOP_WAIT_MS = 5_000;

/** The window (0, 1, 2, … since the epoch) a time falls in. */
export const windowOf = (ms: number): number => Math.floor(ms / REFRESH_INTERVAL_MS);

export class StatusRefresher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private active = false;
  private stopped = false;
  private wake: (() => void) | null = null;
  private readonly id = randomUUID();
  private readonly warn: (msg: string, err: unknown) => void;

  constructor(
    private readonly deps: StatusServiceDeps,
    private readonly service: StatusService = statusService(deps),
  ) {
    this.warn = throttled((msg: string, err: unknown) => deps.logger.warn({ err: (err as Error).message }, msg), 60_000);
  }

  /** True between start() and stop(). */
  get started(): boolean {
    return this.active;
  }

  start(): this {
    if (!this.active) {
      this.active = true;
      this.stopped = false;
      this.schedule();
    }
    return this;
  }

  /** Stops the timer and waits for a tick in progress (one bounded refresh), at most STOP_WAIT_MS. */
  async stop(): Promise<void> {
    this.active = false;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.wake?.();
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([this.running, new Promise<void>((resolve) => (bound = setTimeout(resolve, STOP_WAIT_MS)))]);
    clearTimeout(bound);
  }

  private schedule(): void {
    if (!this.active) return;
    const now = this.deps.clock().getTime();
    const intoWindow = now - windowOf(now) * REFRESH_INTERVAL_MS;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.tick()
        .then(
          () => undefined,
          (err: unknown) => this.warn('background status refresh failed', err),
        )
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, REFRESH_INTERVAL_MS - intoWindow + TICK_SLACK_MS);
    this.timer.unref();
  }

  /**
   * One window's turn: true when this instance held the window's lease (and refreshed, unless
   * stopped meanwhile), false when another instance holds it.
   */
  async tick(): Promise<boolean> {
    const window = windowOf(this.deps.clock().getTime());
    if (!(await this.lease(window))) return false;
    const snapshot = await this.service.current();
    if (Date.parse(snapshot.rollup.checked_at) < window * REFRESH_INTERVAL_MS) {
      // Still the previous window's roll-up (it started a little after that boundary): a request
      // never sees it refreshed early, and neither does the refresher; refresh at its expiry.
      // A timer may fire a millisecond before the wall clock reaches its end: sleep until it has.
      for (let wait = snapshot.expiresAtMs - this.deps.clock().getTime(); wait > 0; ) {
        if (!(await this.sleep(wait + 1))) return true;
        wait = snapshot.expiresAtMs - this.deps.clock().getTime();
      }
      await this.service.current();
    }
    await this.service.settled();
    return true;
  }

  private async lease(window: number): Promise<boolean> {
    try {
      return await this.deps.cache.setIfAbsent(`${LEASE_KEY_PREFIX}${window}`, this.id, LEASE_TTL_MS);
    } catch (err) {
      // No shared cache to agree through: refresh anyway (a duplicate check beats a gap).
      this.warn('status refresh lease not taken: cache unavailable; refreshing anyway', err);
      return true;
    }
  }

  /** Resolves true after `ms`, or false as soon as the refresher is stopped. */
  private sleep(ms: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = null;
        resolve(true);
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        this.wake = null;
        resolve(false);
      };
    });
  }
}

/** The refresher of an app instance (src/workers.ts starts it and stops it on shutdown). */
export function startStatusRefresher(deps: StatusServiceDeps): StatusRefresher {
  return new StatusRefresher(deps).start();
}
