// Host → rendered card, served from cache: an in-process layer (bounded) in front of the shared
// store (Redis) in front of the database. With the memory cache there is one instance, so the
// in-process layer is the whole cache and invalidation is exact and synchronous. With Redis,
// every instance drops its in-process entries on the invalidation message and confirms it; the
// change waits for every instance present to confirm before its reply goes out, so the next
// request anywhere sees it. Until its subscription is live and it is marked present an instance
// skips the in-process layer, and in-process entries expire soon anyway in case a message is
// lost while Redis reconnects. A lookup under way when an
// invalidation arrives keeps its answer out of the in-process layer only when that invalidation
// would have dropped it (its host, or its tunnel): invalidations of other tunnels, which arrive
// all the time from every instance of a busy cluster, do not cost it the fill.
import { randomUUID } from 'node:crypto';
import type { Cache } from '../../infra/cache/cache.js';
import type { Sql } from '../store.js';
import type { Logger } from 'pino';
import type { CardConfig } from './card.js';
import { BoundedTtlMap } from './local-cache.js';
import { throttled } from '../../infra/observability/log-throttle.js';
import { lookUpCard, UNKNOWN, type Looked, type Resolution } from './lookup.js';
import { KnownHosts } from './known-hosts.js';
import { CONFIRM_WAIT_MS, PRESENCE_EVERY_MS, SharedCardStore } from './shared-store.js';
import { withTimeout } from '../../infra/timeout.js';
import { millisOf } from '../clock.js';

export interface CardDeps {
  sql: Sql;
  cache: Cache;
  clock: () => Date;
  logger: Logger;
  config: CardConfig;
}

export const TTL = {
  /** Unknown hosts: short, so a host that appears outside the service's own writes shows soon. */
  unknownMs: 30_000,
  /**
   * Hosts of a tunnel: invalidated explicitly; the expiry is a safety net for a change made while
   * Redis was unreachable (its invalidation could not reach the shared store or other instances).
   */
  tunnelMs: 600_000,
  /** In-process entries under Redis: a lost invalidation message is healed this fast. */
  localUnderRedisMs: 30_000,
} as const;

/**
 * An in-process entry asked for in its last REFRESH_AHEAD_MS is looked up again in the background
 * while it keeps being served, so a host in steady demand (a crawler, a monitor, a card linked
 * from a busy page) never waits for its entry to be reloaded, and the raw card handler stays
 * synchronous. How stale an answer can be does not change: an entry is served until its expiry,
 * as before, and invalidations drop it as before. Only asked-for hosts are reloaded, and each
 * entry once: a reload that fails (or whose answer may not be kept) leaves the entry to expire.
 */
export const REFRESH_AHEAD_MS = 5_000;

/** The database (or Redis, then the database) must answer within this, or the card is a 502. */
export const RESOLVE_TIMEOUT_MS = 2000;

const LOCAL_MAX = { cards: 10_000, unknown: 10_000 };

export class ResolverUnavailable extends Error {}

/** One invalidation, as dropLocal applied it, numbered by the epoch it moved to. */
interface Dropped {
  epoch: number;
  hosts: readonly string[];
  tunnelIds: readonly string[];
}

/**
 * How many recent invalidations are kept for the lookups under way. A lookup lasts at most
 * RESOLVE_TIMEOUT_MS; one that started before the oldest kept is treated as touched (no fill).
 */
const RECENT_DROPS = 512;


export class CardResolver {
  /** Tunnel hosts (cards and non-discoverable tunnels) and unknown hosts, bounded apart so a flood of unknown hosts never evicts a card. */
  private readonly known = new BoundedTtlMap<Resolution>(LOCAL_MAX.cards);
  private readonly unknown = new BoundedTtlMap<Resolution>(LOCAL_MAX.unknown);
  private readonly inflight = new Map<string, Promise<Resolution>>();
  private readonly shared: SharedCardStore | null;
  /** Bumped by every invalidation; the invalidations since a lookup began decide whether it may fill the in-process layer. */
  private epoch = 0;
  /** The last RECENT_DROPS invalidations, oldest first. */
  private readonly recent: Dropped[] = [];
  private localLive: boolean;
  /** Redis down: the database still answers; said once per interval, not per request. */
  private readonly logCacheDown = throttled((err: unknown) => {
    this.deps.logger.warn({ err: (err as Error).message }, 'card cache unreachable; resolving from the database');
  });
  /** This instance, in the shared presence set. */
  private readonly instance = randomUUID();
  private presence: NodeJS.Timeout | null = null;
  /** A change went on without every instance's confirmation: said once per interval. */
  private readonly logUnconfirmed = throttled((missing: number) => {
    this.deps.logger.warn({ missing }, `card change not confirmed by every instance within ${CONFIRM_WAIT_MS} ms`);
  });
  /** Entries (the cache's slot objects) whose reload ahead of expiry has started: one attempt each. */
  private readonly reloaded = new WeakSet<object>();
  /** A reload ahead of expiry failed: the entry is served until it expires, then looked up on demand. */
  private readonly logRefreshFailed = throttled((err: unknown) => {
    this.deps.logger.warn({ err: (err as Error).message }, 'card reload ahead of expiry failed');
  });

  /**
   * The last answer peek gave, good while neither layer has changed since (any set, delete or
   * expiry counts) and the entry is not yet in its last REFRESH_AHEAD_MS: a host asked again and
   * again (a crawler, a monitor, a flood of one unknown host) is one string comparison instead of
   * two map lookups, each hashing a string that node made fresh for the request.
   */
  private readonly lastPeek: { host: string; value: Resolution | undefined; refreshAt: number; mutations: number } = {
    host: '',
    value: undefined,
    refreshAt: 0,
    mutations: -1,
  };

  /** The clock in milliseconds (no Date per request on the hot path). */
  private readonly nowMs: () => number;

  /** Which hosts can have a tunnel (known-hosts.ts): the rest are 404 without a lookup. */
  private readonly hosts: KnownHosts;
  /** The filter's build failed: said once per interval. */
  private readonly logFilterFailed = throttled((err: unknown) => {
    this.deps.logger.warn({ err: (err as Error).message }, 'known-hosts filter build failed; unknown hosts are looked up');
  });

  constructor(private readonly deps: CardDeps) {
    this.nowMs = millisOf(deps.clock);
    this.shared = deps.cache.kind === 'redis' ? new SharedCardStore(deps.cache) : null;
    this.localLive = this.shared === null;
    this.hosts = new KnownHosts(deps.sql, deps.config.zone, (err) => this.logFilterFailed(err));
  }

  /**
   * Subscribes to every instance's invalidations (Redis) and marks this instance present, so a
   * change waits for it to confirm; the in-process layer starts after both.
   */
  async start(): Promise<void> {
    if (this.shared) {
      await this.shared.subscribe(
        (hosts, tunnelIds) => this.dropLocal(hosts, tunnelIds),
        (err) => this.logCacheDown(err),
      );
      await this.markPresent();
      this.presence = setInterval(() => void this.markPresent(), PRESENCE_EVERY_MS);
      this.presence.unref();
    }
    // Built once every change is heard (the invalidations add new hosts to it), in the background.
    this.hosts.rebuild(this.nowMs()).catch((err: unknown) => this.logFilterFailed(err));
  }

  /**
   * Marks this instance present. While it cannot, changes made elsewhere stop waiting for it, so
   * it stops serving from its in-process layer (and empties it) until a mark succeeds again.
   */
  private async markPresent(): Promise<void> {
    try {
      await this.shared!.markPresent(this.instance, true);
      this.localLive = true;
    } catch (err) {
      if (this.localLive) this.dropAllLocal();
      this.localLive = false;
      this.logCacheDown(err);
    }
  }

  /** Stops the known-hosts filter's checks and builds and the presence marks, and says this instance is gone. */
  async stop(): Promise<void> {
    this.hosts.stop();
    if (this.presence) clearInterval(this.presence);
    this.presence = null;
    if (this.shared) await this.shared.markPresent(this.instance, false).catch(() => {});
  }

  /** The in-process answer, synchronously, or undefined (the hot path avoids a promise). */
  peek(host: string): Resolution | undefined {
    if (!this.localLive) return undefined;
    const now = this.nowMs();
    const last = this.lastPeek;
    const mutations = this.known.mutations + this.unknown.mutations + this.hosts.version;
    if (host === last.host && now < last.refreshAt && last.mutations === mutations) return last.value;
    const slot = this.known.slot(host, now) ?? this.unknown.slot(host, now);
    if (slot === undefined) {
      if (this.hosts.mayHave(host, now)) return undefined;
      // No tunnel has the host: remembered like an entry, until the filter changes or is due.
      last.host = host;
      last.value = UNKNOWN;
      last.refreshAt = this.hosts.dueAt;
      last.mutations = mutations;
      return UNKNOWN;
    }
    const refreshAt = slot.expiresAt - REFRESH_AHEAD_MS;
    if (now >= refreshAt && !this.reloaded.has(slot) && !this.inflight.has(host)) {
      this.reloaded.add(slot);
      this.lookUp(host).catch((err: unknown) => this.logRefreshFailed(err));
    }
    last.host = host;
    last.value = slot.value;
    last.refreshAt = refreshAt;
    last.mutations = this.known.mutations + this.unknown.mutations + this.hosts.version;
    return slot.value;
  }

  resolve(host: string): Promise<Resolution> {
    const cached = this.peek(host);
    if (cached) return Promise.resolve(cached);
    return this.lookUp(host);
  }

  /** One lookup per host at a time: later callers join the one under way. */
  private lookUp(host: string): Promise<Resolution> {
    const joined = this.inflight.get(host);
    if (joined) return joined;
    const pending: Promise<Resolution> = withTimeout(this.load(host), RESOLVE_TIMEOUT_MS, () => new ResolverUnavailable(`no answer within ${RESOLVE_TIMEOUT_MS} ms`)).finally(() => {
      if (this.inflight.get(host) === pending) this.inflight.delete(host);
    });
    this.inflight.set(host, pending);
    return pending;
  }

  private async load(host: string): Promise<Resolution> {
    const epoch = this.epoch;
    const now = this.nowMs();
    let generation: string | null = null;
    if (this.shared) {
      try {
        const read = await this.shared.read(host, now);
        if (read.hit) {
          this.fillLocal(host, read.hit, epoch, now);
          return read.hit;
        }
        generation = read.generation;
      } catch (err) {
        // Nothing is written back below: the shared store is not trusted until it answers again.
        this.logCacheDown(err);
      }
    }
    let looked: Looked;
    try {
      looked = await lookUpCard(this.deps.sql, this.deps.config, host);
    } catch (err) {
      throw new ResolverUnavailable((err as Error).message, { cause: err });
    }
    const ttl = looked.resolution.tunnelId === null ? TTL.unknownMs : TTL.tunnelMs;
    if (this.shared && generation !== null) {
      this.shared.write(host, looked, generation, now, ttl).catch((err: unknown) => this.logCacheDown(err));
    }
    this.fillLocal(host, looked.resolution, epoch, now);
    return looked.resolution;
  }

  private fillLocal(host: string, r: Resolution, epoch: number, now: number): void {
    if (!this.localLive || (epoch !== this.epoch && this.droppedSince(epoch, host, r.tunnelId))) return;
    if (r.tunnelId === null) {
      this.unknown.set(host, r, now + TTL.unknownMs);
      return;
    }
    this.known.set(host, r, now + (this.shared ? TTL.localUnderRedisMs : TTL.tunnelMs));
  }

  /**
   * Whether an invalidation since `epoch` would have dropped an entry for `host` resolving to
   * `tunnelId` (as dropLocal drops: by host, or by tunnel); true when some of those
   * invalidations are no longer kept.
   */
  private droppedSince(epoch: number, host: string, tunnelId: string | null): boolean {
    const oldest = this.recent[0];
    if (oldest === undefined || oldest.epoch > epoch + 1) return true;
    for (let i = this.recent.length - 1; i >= 0 && this.recent[i]!.epoch > epoch; i--) {
      const d = this.recent[i]!;
      if (d.hosts.includes(host) || (tunnelId !== null && d.tunnelIds.includes(tunnelId))) return true;
    }
    return false;
  }

  private dropLocal(hosts: readonly string[], tunnelIds: readonly string[]): void {
    this.hosts.add(hosts);
    this.epoch++;
    this.recent.push({ epoch: this.epoch, hosts: [...hosts], tunnelIds: [...tunnelIds] });
    if (this.recent.length > RECENT_DROPS) this.recent.shift();
    // A lookup already under way may have read the old state: later requests must not join it.
    this.inflight.clear();
    for (const h of hosts) {
      this.known.delete(h);
      this.unknown.delete(h);
    }
    if (tunnelIds.length > 0) {
      const ids = new Set(tunnelIds);
      this.known.deleteWhere((r) => r.tunnelId !== null && ids.has(r.tunnelId));
    }
  }

  /** Every in-process entry goes (the known-hosts filter stays: it only ever over-approximates). */
  private dropAllLocal(): void {
    this.epoch++;
    this.recent.length = 0;
    this.inflight.clear();
    this.known.deleteWhere(() => true);
    this.unknown.deleteWhere(() => true);
  }

  /**
   * Drops the hosts and everything of the tunnels here, in the shared store, and on every
   * instance; resolves once every instance present has confirmed (bounded: CONFIRM_WAIT_MS).
   */
  async invalidate(hosts: readonly string[], tunnelIds: readonly string[]): Promise<void> {
    this.dropLocal(hosts, tunnelIds);
    if (!this.shared) return;
    const all = await this.shared.invalidate(hosts, tunnelIds);
    this.dropLocal(all, []);
    const unconfirmed = await this.shared.publish(all, tunnelIds);
    if (unconfirmed > 0) this.logUnconfirmed(unconfirmed);
  }
}
