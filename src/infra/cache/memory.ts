// In-process store used when REDIS_URL is unset. Bounded: past maxEntries the oldest keys go, so
// a flood of distinct keys (random hosts, many IPs) cannot grow memory without limit.
import { EventEmitter } from 'node:events';
import type { Cache } from './cache.js';

interface Entry {
  value: string;
  expiresAt: number;
}

export class MemoryCache implements Cache {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, Entry>();
  private readonly bus = new EventEmitter();
  /** markPresent() sets: member → until when (ms). */
  private readonly presence = new Map<string, Map<string, number>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly maxEntries = 200_000,
    private readonly now: () => number = Date.now,
  ) {
    this.bus.setMaxListeners(0);
    this.sweeper = setInterval(() => this.sweep(), 30_000);
    this.sweeper.unref();
  }

  private live(key: string): Entry | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }

  private put(key: string, value: string, ttlMs: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  private sweep(): void {
    const t = this.now();
    for (const [k, e] of this.entries) if (e.expiresAt <= t) this.entries.delete(k);
  }

  async get(key: string): Promise<string | null> {
    return this.live(key)?.value ?? null;
  }

  async getMany(keys: readonly string[]): Promise<(string | null)[]> {
    return keys.map((key) => this.live(key)?.value ?? null);
  }

  setReplicated(key: string, value: string, ttlMs: number): Promise<void> {
    return this.set(key, value, ttlMs);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.put(key, value, ttlMs);
  }

  async setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    if (this.live(key)) return false;
    this.put(key, value, ttlMs);
    return true;
  }

  async setUnless(key: string, value: string, ttlMs: number, unless: string): Promise<void> {
    if (this.live(key)?.value === unless) return;
    this.put(key, value, ttlMs);
  }

  async take(key: string): Promise<string | null> {
    const e = this.live(key);
    this.entries.delete(key);
    return e?.value ?? null;
  }

  async del(...keys: string[]): Promise<void> {
    for (const k of keys) this.entries.delete(k);
  }

  async hit(key: string, windowMs: number): Promise<{ count: number; resetMs: number }> {
    const e = this.live(key);
    if (!e) {
      this.put(key, '1', windowMs);
      return { count: 1, resetMs: windowMs };
    }
    const count = Number(e.value) + 1;
    e.value = String(count);
    return { count, resetMs: e.expiresAt - this.now() };
  }


  async hitMany(counters: readonly { key: string; windowMs: number }[]): Promise<{ count: number; resetMs: number }[]> {
    const out: { count: number; resetMs: number }[] = [];
    for (const c of counters) out.push(await this.hit(c.key, c.windowMs));
    return out;
  }

  async settleCounters(unhit: readonly string[], del: readonly string[]): Promise<void> {
    for (const k of unhit) {
      const e = this.live(k);
      if (e && Number(e.value) > 0) e.value = String(Number(e.value) - 1);
    }
    await this.del(...del);
  }

  async peek(key: string): Promise<{ count: number; resetMs: number } | null> {
    const e = this.live(key);
    return e ? { count: Number(e.value), resetMs: e.expiresAt - this.now() } : null;
  }

  async getVersioned(versionKey: string, dataPrefix: string): Promise<{ version: string; value: string | null }> {
    const version = this.live(versionKey)?.value ?? '0';
    return { version, value: this.live(dataPrefix + version)?.value ?? null };
  }

  async bump(versionKey: string, ttlMs: number): Promise<void> {
    this.put(versionKey, String(Number(this.live(versionKey)?.value ?? '0') + 1), ttlMs);
  }

  async storeVersioned(versionKey: string, dataPrefix: string, version: number, value: string, ttlMs: number, versionTtlMs: number): Promise<boolean> {
    if (version < Number(this.live(versionKey)?.value ?? '0')) return false;
    this.put(versionKey, String(version), versionTtlMs);
    this.put(dataPrefix + version, value, ttlMs);
    return true;
  }

  async raiseVersion(versionKey: string, version: number, ttlMs: number): Promise<void> {
    this.put(versionKey, String(Math.max(version, Number(this.live(versionKey)?.value ?? '0'))), ttlMs);
  }

  async markPresent(setKey: string, member: string, ttlMs: number): Promise<void> {
    const set = this.presence.get(setKey) ?? new Map<string, number>();
    if (ttlMs > 0) set.set(member, this.now() + ttlMs);
    else set.delete(member);
    this.presence.set(setKey, set);
  }

  async present(setKey: string): Promise<string[]> {
    const t = this.now();
    const set = this.presence.get(setKey);
    if (!set) return [];
    for (const [m, until] of set) if (until <= t) set.delete(m);
    return [...set.keys()];
  }

  async publish(channel: string, message: string): Promise<void> {
    this.bus.emit(channel, message);
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>> {
    this.bus.on(channel, onMessage);
    return async () => {
      this.bus.off(channel, onMessage);
    };
  }

  async ping(): Promise<void> {}

  /** In the process: never unreachable. */
  reachableSince(): number {
    return 0;
  }

  gatherWrites(): void {
    // Nothing is written anywhere.
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.entries.clear();
    this.presence.clear();
    this.bus.removeAllListeners();
  }
}
