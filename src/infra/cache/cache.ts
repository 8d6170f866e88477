// The cache contract shared by the Redis store and the in-process memory store. Everything that
// must agree across instances (sessions, rate limits, rendered cards, the status roll-up) goes
// through it; the memory store gives one instance the same semantics.

export interface Cache {
  readonly kind: 'redis' | 'memory';
  get(key: string): Promise<string | null>;
  /** Several keys in one command (MGET), in order; under Redis Cluster they must share a slot (one hash tag). */
  getMany(keys: readonly string[]): Promise<(string | null)[]>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /**
   * set() that must survive a Redis failover: with replicas configured (REDIS_WAIT_REPLICAS) it
   * resolves only once they acknowledged the write, and rejects otherwise, so the caller falls
   * back (a revocation then bumps its epoch in the database).
   */
  setReplicated(key: string, value: string, ttlMs: number): Promise<void>;
  /** Sets only when absent; true when this call set it (locks, single flight). */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Sets unless the current value is `unless` (atomically): a refresh never overwrites a tombstone. */
  setUnless(key: string, value: string, ttlMs: number, unless: string): Promise<void>;
  /** Reads and deletes atomically (single-use values). */
  take(key: string): Promise<string | null>;
  del(...keys: string[]): Promise<void>;
  /** Fixed-window counter: increments and returns the count and the window's remaining time. */
  hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }>;
  /**
   * hit() on several counters in one round trip (under Redis Cluster, one per hash slot, sent
   * together); the results in the order given.
   */
  hitMany(counters: readonly { key: string; windowMs: number }[]): Promise<{ count: number; resetMs: number }[]>;
  /**
   * After a success, in one round trip (one per hash slot under Redis Cluster): takes back one
   * hit() from each counter of `unhit` whose window is still open (never below zero, never
   * opening one, keeping the window), and deletes each key of `del`.
   */
  settleCounters(unhit: readonly string[], del: readonly string[]): Promise<void>;
  /** Reads a counter made by hit() without changing it; null when its window is over. */
  peek(key: string): Promise<{ count: number; resetMs: number } | null>;
  /**
   * Versioned read in one round trip: the current version of `versionKey` ("0" when unset) and
   * the value stored at `dataPrefix + version`. A writer bumps the version after committing, so a
   * reader that loaded stale data concurrently can only have stored it under a dead version.
   */
  getVersioned(versionKey: string, dataPrefix: string): Promise<{ version: string; value: string | null }>;
  /** Increments a version key (and keeps it for ttlMs). */
  bump(versionKey: string, ttlMs: number): Promise<void>;
  /**
   * Versions a writer does not count but reads from its database (a number the database moves in
   * the transaction of every change): stores `value` at `dataPrefix + version` and raises
   * `versionKey` to `version`, unless the key already holds a larger one (a newer copy, or a change
   * said to be committed since `value` was read), in which case nothing is stored; false then.
   * One script; the keys share a slot (getVersioned). The version key is kept for versionTtlMs.
   */
  storeVersioned(versionKey: string, dataPrefix: string, version: number, value: string, ttlMs: number, versionTtlMs: number): Promise<boolean>;
  /** Raises a version key to `version` (never lowers it) and keeps it for ttlMs: a change committed at that version. */
  raiseVersion(versionKey: string, version: number, ttlMs: number): Promise<void>;
  /**
   * Presence in a set whose members expire one by one: `member` counts as present for `ttlMs`
   * from now (0 removes it). Under Redis Cluster a set lives in one slot (its own key); times
   * are Redis's own clock, so instances with skewed clocks agree.
   */
  markPresent(setKey: string, member: string, ttlMs: number): Promise<void>;
  /** The members of a markPresent() set that are present now. */
  present(setKey: string): Promise<string[]>;
  publish(channel: string, message: string): Promise<void>;
  /** Subscribes to a channel; returns a function that unsubscribes. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>>;
  ping(): Promise<void>;
  /**
   * The commands sent from now until the current tick's work is done (this call's continuations
   * included) leave in one write to the server instead of one each: a request that sends two
   * independent commands back to back pays one system call for both. Their answers are unchanged.
   * Under Redis Cluster (the commands may go to different nodes) and in memory it does nothing.
   */
  gatherWrites(): void;
  /**
   * Since when (performance.now()) the cache has answered without a break: after it was last
   * found unreachable (a command failed, a connection dropped), when it answered again;
   * Infinity while it is unreachable; 0 when it never was. An entry read now may have been
   * written before a change that could not reach the cache meanwhile, so whatever vouches for
   * it must have been read after this (a credential's revocation epoch, sessions/session.ts).
   */
  reachableSince(): number;
  close(): Promise<void>;
}

/**
 * A cache operation whose failure (Redis unreachable) must not fail the request: the caller's
 * fallback stands in, and the database or a fail-open rule answers instead.
 */
export async function orFallback<T>(op: Promise<T>, fallback: T): Promise<T> {
  try {
    return await op;
  } catch {
    return fallback;
  }
}
