// Redis store: shared by every instance. One node (REDIS_URL), a Redis Cluster
// (REDIS_CLUSTER_URLS) or a master found through Sentinel (REDIS_SENTINEL_URLS and
// REDIS_SENTINEL_NAME). Commands fail fast while Redis is unreachable (no offline queue), so
// callers can fall back to the database instead of hanging. In cluster mode every script and
// pipeline touches one hash slot (see keys.ts); a multi-key DEL is split by slot.
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Cache } from './cache.js';
import { assertOneSlot, keySlot } from './keys.js';
const HIT_SCRIPT = `
local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local t = redis.call('PTTL', KEYS[1])
return {c, t}`;

// hit() on each key (ARGV[i] is KEYS[i]'s window): the counts and remaining windows, flattened.
const HIT_MANY_SCRIPT = `
local out = {}
for i, k in ipairs(KEYS) do
  local c = redis.call('INCR', k)
  if c == 1 then redis.call('PEXPIRE', k, ARGV[i]) end
  out[2 * i - 1] = c
  out[2 * i] = redis.call('PTTL', k)
end
return out`;

// A success settled: the first ARGV[1] keys refunded (one less, only while the window is open
// and above zero; the key keeps its expiry), the others deleted.
const SETTLE_SCRIPT = `
local n = tonumber(ARGV[1])
for i, k in ipairs(KEYS) do
  if i <= n then
    local v = tonumber(redis.call('GET', k) or '0')
    if v > 0 then redis.call('DECR', k) end
  else
    redis.call('DEL', k)
  end
end
return 0`;

// A counter and its remaining window in one command (MULTI GET PTTL EXEC would be four).
const PEEK_SCRIPT = `
local v = redis.call('GET', KEYS[1])
if not v then return nil end
return {v, redis.call('PTTL', KEYS[1])}`;

const GET_VERSIONED_SCRIPT = `
local v = redis.call('GET', KEYS[1]) or '0'
return {v, redis.call('GET', ARGV[1] .. v)}`;

const SET_UNLESS_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

// ARGV: data prefix, version, value, its ttl, the version key's ttl.
const STORE_VERSIONED_SCRIPT = `
local v = tonumber(ARGV[2])
if v < tonumber(redis.call('GET', KEYS[1]) or '0') then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[5])
redis.call('SET', ARGV[1] .. ARGV[2], ARGV[3], 'PX', ARGV[4])
return 1`;

const RAISE_SCRIPT = `
if tonumber(ARGV[1]) > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1`;

const BUMP_SCRIPT = `
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

// Presence: a sorted set scored by when each member stops counting, on Redis's clock. Marking
// also prunes the members already gone and keeps the key as long as its longest member.
const MARK_PRESENT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ttl > 0 then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(last[2]) - now))
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
return 1`;

const PRESENT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')`;

/** Where the shared Redis is: one node, a cluster (seed nodes), or a Sentinel-managed master. */
export type RedisTarget =
  | { mode: 'single'; url: string }
  | { mode: 'cluster'; urls: string[] }
  | { mode: 'sentinel'; urls: string[]; name: string };

export interface RedisCacheOptions {
  commandTimeoutMs?: number;
  /**
   * Replicas that must acknowledge a setReplicated() write (WAIT) before it counts; 0 for a
   * single node. A write not acknowledged in time rejects, and the caller takes its fallback.
   */
  waitReplicas?: number;
  waitTimeoutMs?: number;
  /** Start-up gives up when the client is not ready by then (default 10 s). */
  connectDeadlineMs?: number;
}

interface Scripts {
  getVersioned(versionKey: string, dataPrefix: string): Promise<[string, string | null]>;
  bumpVersion(versionKey: string, ttlMs: string): Promise<number>;
  storeVersioned(versionKey: string, dataPrefix: string, version: string, value: string, ttlMs: string, versionTtlMs: string): Promise<number>;
  raiseVersion(versionKey: string, version: string, ttlMs: string): Promise<number>;
  hitCounter(key: string, windowMs: string): Promise<[number, number]>;
  peekCounter(key: string): Promise<[string, number] | null>;
  /** Variadic: the number of keys, the keys, then one window per key. */
  hitCounters(...args: (string | number)[]): Promise<number[]>;
  /** Variadic: the number of keys, the keys, then how many of them (the first) to refund. */
  settleCounters(...args: (string | number)[]): Promise<number>;
  setUnless(key: string, value: string, ttlMs: string, unless: string): Promise<number>;
  markPresent(setKey: string, member: string, ttlMs: string): Promise<number>;
  presentMembers(setKey: string): Promise<string[]>;
}
type Client = (Redis | Cluster) & Scripts;

function nodeOf(raw: string): { host: string; port: number } {
  const u = new URL(raw);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379) };
}

/** Credentials, TLS and db number of a redis:// or rediss:// URL. */
function connectionOf(raw: string): Pick<RedisOptions, 'username' | 'password' | 'db' | 'tls'> {
  const u = new URL(raw);
  const db = Number(u.pathname.replace(/^\//, '') || 0);
  return {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(db > 0 ? { db } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

function createClient(target: RedisTarget, commandTimeout: number): Redis | Cluster {
  const common = {
    connectTimeout: 3000,
    commandTimeout,
    maxRetriesPerRequest: 1,
    // No auto-pipelining: it saved a write when a sign-in's limit counters leave in one tick, but
    // under load each command waits for the previous batch's round trip and every batch is a
    // fresh Pipeline object, so the commands of a flood of card misses outlived two young-
    // generation collections and were promoted: the old space grew by the flood's size until the
    // next full collection. An authenticated `me` costs the same CPU either way (ADR 9).
    enableAutoPipelining: false,
  } satisfies RedisOptions;
  if (target.mode === 'single') {
    return new Redis(target.url, {
      ...common,
      lazyConnect: true,
      enableOfflineQueue: false,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
  }
  if (target.mode === 'sentinel') {
    const { db, ...auth } = connectionOf(target.urls[0]!);
    return new Redis({
      ...common,
      ...auth,
      ...(db ? { db } : {}),
      sentinels: target.urls.map(nodeOf),
      name: target.name,
      role: 'master',
      lazyConnect: true,
      enableOfflineQueue: false,
      // Not failoverDetector: with the old master already gone (reconnecting), its disconnect
      // ends the client for good (ioredis 6); asking the sentinel on each reconnect suffices.
      sentinelRetryStrategy: (times) => Math.min(times * 200, 2000),
      retryStrategy: (times) => Math.min(times * 100, 1000),
    });
  }
  const { db: _db, ...auth } = connectionOf(target.urls[0]!);
  const options: ClusterOptions = {
    lazyConnect: true,
    enableAutoPipelining: false,
    enableOfflineQueue: false,
    // A failover (a replica promoted) takes the cluster a few seconds: commands to the dead
    // master fail fast meanwhile (the callers fall back), and the slot map is refreshed often.
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    maxRedirections: 4,
    slotsRefreshTimeout: 1000,
    slotsRefreshInterval: 2000,
    clusterRetryStrategy: (times) => Math.min(100 + times * 100, 1000),
    redisOptions: { ...common, ...auth },
  };
  return new Cluster(target.urls.map(nodeOf), options);
}

export class RedisCache implements Cache {
  readonly kind = 'redis' as const;
  private subscriber: Redis | Cluster | null = null;
  private readonly handlers = new Map<string, Set<(m: string) => void>>();
  private readonly cluster: boolean;
  /** See reachableSince(). */
  private answeringSince = 0;

  private constructor(
    private readonly client: Client,
    readonly target: RedisTarget,
    private readonly waitReplicas: number,
    private readonly waitTimeoutMs: number,
  ) {
    this.cluster = target.mode === 'cluster';
    // A dropped connection is an outage even when no command noticed it (an instance without
    // traffic meanwhile); a failed command (a timeout: Redis silent) is one too (failed()).
    const lost = () => {
      this.answeringSince = Number.POSITIVE_INFINITY;
    };
    client.on('close', lost);
    client.on('error', lost);
    client.on('node error', lost);
    client.on('ready', () => this.answered());
  }

  /**
   * Since when Redis has answered without a break (Cache.reachableSince): a revocation made
   * while it was unreachable could not write its tombstone, so the entries read from it after
   * that are vouched for only by a revocation epoch read since (sessions/session.ts).
   */
  reachableSince(): number {
    return this.answeringSince;
  }

  /** Whether gatherWrites() holds the socket corked until the tick's work is done. */
  private gathering = false;

  gatherWrites(): void {
    if (this.cluster || this.gathering) return;
    const client = this.client as Redis;
    // Only on a connection that is ready: while connecting, ioredis queues nothing anyway (no
    // offline queue), and a socket being replaced is not worth holding.
    if (client.status !== 'ready') return;
    const socket = client.stream;
    this.gathering = true;
    socket.cork();
    // process.nextTick runs once the promise reactions queued so far (and those they queue) have
    // run, so the continuations of the caller's awaits still join the same write.
    process.nextTick(() => {
      this.gathering = false;
      socket.uncork();
    });
  }

  /** Redis answered: the first answer after an outage starts a new period. */
  private answered(): void {
    if (this.answeringSince === Number.POSITIVE_INFINITY) this.answeringSince = performance.now();
  }

  /** A command failed: Redis is taken as unreachable until it answers again. */
  private failed(err: unknown): unknown {
    this.answeringSince = Number.POSITIVE_INFINITY;
    return err;
  }

  /** A command's result, noting whether Redis answered. */
  private async tracked<T>(op: Promise<T>): Promise<T> {
    try {
      const result = await op;
      this.answered();
      return result;
    } catch (err) {
      throw this.failed(err);
    }
  }

  static async connect(where: RedisTarget | string, opts: RedisCacheOptions = {}): Promise<RedisCache> {
    const target: RedisTarget = typeof where === 'string' ? { mode: 'single', url: where } : where;
    const client = createClient(target, opts.commandTimeoutMs ?? 1000);
    client.on('error', () => {
      /* reported through failing commands; reconnects by itself */
    });
    // Scripts run by SHA (EVALSHA), loaded once per connection; each touches one slot.
    client.defineCommand('getVersioned', { numberOfKeys: 1, lua: GET_VERSIONED_SCRIPT });
    client.defineCommand('bumpVersion', { numberOfKeys: 1, lua: BUMP_SCRIPT });
    client.defineCommand('storeVersioned', { numberOfKeys: 1, lua: STORE_VERSIONED_SCRIPT });
    client.defineCommand('raiseVersion', { numberOfKeys: 1, lua: RAISE_SCRIPT });
    client.defineCommand('hitCounter', { numberOfKeys: 1, lua: HIT_SCRIPT });
    client.defineCommand('peekCounter', { numberOfKeys: 1, lua: PEEK_SCRIPT });
    client.defineCommand('hitCounters', { lua: HIT_MANY_SCRIPT });
    client.defineCommand('settleCounters', { lua: SETTLE_SCRIPT });
    client.defineCommand('setUnless', { numberOfKeys: 1, lua: SET_UNLESS_SCRIPT });
    client.defineCommand('markPresent', { numberOfKeys: 1, lua: MARK_PRESENT_SCRIPT });
    client.defineCommand('presentMembers', { numberOfKeys: 1, lua: PRESENT_SCRIPT });
    // Start-up fails (naming the variable, deps.ts) rather than waiting: a Sentinel client would
    // otherwise keep asking unreachable sentinels without ever rejecting.
    const deadline = opts.connectDeadlineMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.connect(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`not ready within ${deadline} ms`)), deadline);
        }),
      ]);
    } catch (err) {
      client.disconnect();
      throw err;
    } finally {
      clearTimeout(timer);
    }
    return new RedisCache(client as Client, target, opts.waitReplicas ?? 0, opts.waitTimeoutMs ?? 500);
  }

  async get(key: string): Promise<string | null> {
    // Inline rather than tracked(): every authenticated request's credential check reads here.
    try {
      const value = await this.client.get(key);
      this.answered();
      return value;
    } catch (err) {
      throw this.failed(err);
    }
  }

  async getMany(keys: readonly string[]): Promise<(string | null)[]> {
    if (keys.length === 0) return [];
    if (this.cluster) assertOneSlot(...keys);
    return this.tracked(this.client.mget(...keys));
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.tracked(this.client.set(key, value, 'PX', Math.max(1, Math.ceil(ttlMs))));
  }

  async setReplicated(key: string, value: string, ttlMs: number): Promise<void> {
    if (this.waitReplicas === 0) return this.set(key, value, ttlMs);
    // One pipeline on the key's master: the write, then WAIT for its replicas. Asynchronous
    // replication could otherwise lose the write to a failover that promotes a replica.
    const res = await this.tracked(
      this.client
        .pipeline()
        .set(key, value, 'PX', Math.max(1, Math.ceil(ttlMs)))
        .wait(this.waitReplicas, this.waitTimeoutMs)
        .exec(),
    );
    const failed = res?.find(([err]) => err);
    if (!res || failed) throw failed?.[0] ?? new Error('redis pipeline aborted');
    const acked = Number(res[1]?.[1]);
    if (acked < this.waitReplicas) throw new Error(`write acknowledged by ${acked} of ${this.waitReplicas} replicas`);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    return (await this.tracked(this.client.set(key, value, 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX'))) === 'OK';
  }

  async take(key: string): Promise<string | null> {
    return this.tracked(this.client.getdel(key));
  }

  async del(...keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    if (!this.cluster) {
      await this.tracked(this.client.del(...keys));
      return;
    }
    // A DEL of keys in several slots is a CROSSSLOT error: one DEL per slot.
    await this.tracked(Promise.all(this.bySlot(keys.length, (i) => keys[i]!).map((group) => this.client.del(...group.map((i) => keys[i]!)))));
  }

  async setUnless(key: string, value: string, ttlMs: number, unless: string): Promise<void> {
    await this.tracked(this.client.setUnless(key, value, String(Math.max(1, Math.round(ttlMs))), unless));
  }

  async hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }> {
    const [count, ttl] = await this.tracked(this.client.hitCounter(key, String(windowMs)));
    return { count, resetMs: ttl > 0 ? ttl : windowMs };
  }

  async hitMany(counters: readonly { key: string; windowMs: number }[]): Promise<{ count: number; resetMs: number }[]> {
    const out: { count: number; resetMs: number }[] = new Array(counters.length);
    await Promise.all(
      this.bySlot(counters.length, (i) => counters[i]!.key).map(async (group) => {
        const flat = await this.tracked(
          this.client.hitCounters(group.length, ...group.map((i) => counters[i]!.key), ...group.map((i) => String(counters[i]!.windowMs))),
        );
        group.forEach((i, j) => {
          const ttl = flat[2 * j + 1]!;
          out[i] = { count: flat[2 * j]!, resetMs: ttl > 0 ? ttl : counters[i]!.windowMs };
        });
      }),
    );
    return out;
  }

  async settleCounters(unhit: readonly string[], del: readonly string[]): Promise<void> {
    const keys = [...unhit, ...del];
    await this.tracked(
      Promise.all(
        this.bySlot(keys.length, (i) => keys[i]!).map((group) =>
          this.client.settleCounters(group.length, ...group.map((i) => keys[i]!), group.filter((i) => i < unhit.length).length),
        ),
      ),
    );
  }

  /**
   * The indexes 0..n-1 grouped so that each group's keys share a cluster slot: one group on a
   * single node or Sentinel (any keys may go together), one per slot on a cluster. Each group
   * keeps its indexes in ascending order.
   */
  private bySlot(n: number, keyAt: (i: number) => string): number[][] {
    const all = Array.from({ length: n }, (_, i) => i);
    if (!this.cluster || n === 0) return n === 0 ? [] : [all];
    const groups = new Map<number, number[]>();
    for (const i of all) {
      const slot = keySlot(keyAt(i));
      const group = groups.get(slot);
      if (group) group.push(i);
      else groups.set(slot, [i]);
    }
    return [...groups.values()];
  }

  async peek(key: string): Promise<{ count: number; resetMs: number } | null> {
    const res = await this.tracked(this.client.peekCounter(key));
    if (res === null) return null;
    const [value, ttl] = res;
    if (ttl <= 0) return null;
    return { count: Number(value), resetMs: ttl };
  }

  async getVersioned(versionKey: string, dataPrefix: string): Promise<{ version: string; value: string | null }> {
    // The script reads `dataPrefix .. version`, a key it cannot declare: it must share the slot.
    if (this.cluster) assertOneSlot(versionKey, `${dataPrefix}0`);
    const [version, value] = await this.tracked(this.client.getVersioned(versionKey, dataPrefix));
    return { version, value };
  }

  async bump(versionKey: string, ttlMs: number): Promise<void> {
    await this.tracked(this.client.bumpVersion(versionKey, String(Math.max(1, Math.ceil(ttlMs)))));
  }

  async storeVersioned(versionKey: string, dataPrefix: string, version: number, value: string, ttlMs: number, versionTtlMs: number): Promise<boolean> {
    if (this.cluster) assertOneSlot(versionKey, `${dataPrefix}0`);
    const ms = (n: number) => String(Math.max(1, Math.ceil(n)));
    return (await this.tracked(this.client.storeVersioned(versionKey, dataPrefix, String(version), value, ms(ttlMs), ms(versionTtlMs)))) === 1;
  }

  async raiseVersion(versionKey: string, version: number, ttlMs: number): Promise<void> {
    await this.tracked(this.client.raiseVersion(versionKey, String(version), String(Math.max(1, Math.ceil(ttlMs)))));
  }

  async markPresent(setKey: string, member: string, ttlMs: number): Promise<void> {
    await this.tracked(this.client.markPresent(setKey, member, String(Math.max(0, Math.ceil(ttlMs)))));
  }

  async present(setKey: string): Promise<string[]> {
    return this.tracked(this.client.presentMembers(setKey));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.tracked(this.client.publish(channel, message));
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>> {
    if (!this.subscriber) {
      // Its own connection (a subscribed connection takes no other command). On a cluster,
      // PUBLISH reaches every node, so one subscribed node hears all; ioredis moves the
      // subscription to another node (and resubscribes) when that node fails.
      const sub =
        this.client instanceof Cluster
          ? this.client.duplicate([], { lazyConnect: true, enableOfflineQueue: true })
          : this.client.duplicate({ lazyConnect: true, enableOfflineQueue: true, maxRetriesPerRequest: null });
      sub.on('error', () => {});
      sub.on('message', (ch: string, msg: string) => {
        for (const h of this.handlers.get(ch) ?? []) h(msg);
      });
      this.subscriber = sub;
      await sub.connect();
    }
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      await this.subscriber.subscribe(channel);
    }
    set.add(onMessage);
    return async () => {
      set.delete(onMessage);
      if (set.size === 0) {
        this.handlers.delete(channel);
        await this.subscriber?.unsubscribe(channel);
      }
    };
  }

  async ping(): Promise<void> {
    await this.tracked(this.client.ping());
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
