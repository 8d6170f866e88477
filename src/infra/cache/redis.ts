// Redis store: shared by every instance. Commands fail fast while Redis is unreachable (no
// offline queue), so callers can fall back to the database instead of hanging.
import { Redis } from 'ioredis';
import type { Cache } from './cache.js';

const HIT_SCRIPT = `
local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local t = redis.call('PTTL', KEYS[1])
return {c, t}`;

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

const BUMP_SCRIPT = `
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`;

type ScriptedRedis = Redis & {
  getVersioned(versionKey: string, dataPrefix: string): Promise<[string, string | null]>;
  bumpVersion(versionKey: string, ttlMs: string): Promise<number>;
  hitCounter(key: string, windowMs: string): Promise<[number, number]>;
  peekCounter(key: string): Promise<[string, number] | null>;
  setUnless(key: string, value: string, ttlMs: string, unless: string): Promise<number>;
};

export class RedisCache implements Cache {
  readonly kind = 'redis' as const;
  private subscriber: Redis | null = null;
  private readonly handlers = new Map<string, Set<(m: string) => void>>();

  private constructor(
    private readonly client: ScriptedRedis,
    private readonly url: string,
  ) {}

  static async connect(url: string, opts: { commandTimeoutMs?: number } = {}): Promise<RedisCache> {
    const client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 3000,
      commandTimeout: opts.commandTimeoutMs ?? 1000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    client.on('error', () => {
      /* reported through failing commands; reconnects by itself */
    });
    // Scripts run by SHA (EVALSHA), loaded once per connection.
    client.defineCommand('getVersioned', { numberOfKeys: 1, lua: GET_VERSIONED_SCRIPT });
    client.defineCommand('bumpVersion', { numberOfKeys: 1, lua: BUMP_SCRIPT });
    client.defineCommand('hitCounter', { numberOfKeys: 1, lua: HIT_SCRIPT });
    client.defineCommand('peekCounter', { numberOfKeys: 1, lua: PEEK_SCRIPT });
    client.defineCommand('setUnless', { numberOfKeys: 1, lua: SET_UNLESS_SCRIPT });
    await client.connect();
    return new RedisCache(client as ScriptedRedis, url);
  }

  async get(key: string): Promise<string | null> {
    return this.client.get(key);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.client.set(key, value, 'PX', Math.max(1, Math.ceil(ttlMs)));
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    return (await this.client.set(key, value, 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX')) === 'OK';
  }

  async take(key: string): Promise<string | null> {
    return this.client.getdel(key);
  }

  async del(...keys: string[]): Promise<void> {
    if (keys.length > 0) await this.client.del(...keys);
  }

  async setUnless(key: string, value: string, ttlMs: number, unless: string): Promise<void> {
    await this.client.setUnless(key, value, String(Math.max(1, Math.round(ttlMs))), unless);
  }

  async hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }> {
    const [count, ttl] = await this.client.hitCounter(key, String(windowMs));
    return { count, resetMs: ttl > 0 ? ttl : windowMs };
  }

  async peek(key: string): Promise<{ count: number; resetMs: number } | null> {
    const res = await this.client.peekCounter(key);
    if (res === null) return null;
    const [value, ttl] = res;
    if (ttl <= 0) return null;
    return { count: Number(value), resetMs: ttl };
  }

  async getVersioned(versionKey: string, dataPrefix: string): Promise<{ version: string; value: string | null }> {
    const [version, value] = await this.client.getVersioned(versionKey, dataPrefix);
    return { version, value };
  }

  async bump(versionKey: string, ttlMs: number): Promise<void> {
    await this.client.bumpVersion(versionKey, String(Math.max(1, Math.ceil(ttlMs))));
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.client.publish(channel, message);
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>> {
    if (!this.subscriber) {
      this.subscriber = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: null });
      this.subscriber.on('error', () => {});
      this.subscriber.on('message', (ch: string, msg: string) => {
        for (const h of this.handlers.get(ch) ?? []) h(msg);
      });
      await this.subscriber.connect();
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
    await this.client.ping();
  }

  async close(): Promise<void> {
    this.subscriber?.disconnect();
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
