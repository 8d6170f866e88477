// The shared layer of the card cache (Redis): one entry per host, a generation counter per host,
// and an index tunnel id → its hosts (a deleted account's tunnels are known only by id).
//
// Why the generation: an instance that read the database just before a change commits could
// write the old card after the change's invalidation deleted it. Each entry records the
// generation read before its database query; invalidation bumps it, so such a late write is
// never valid. Entries also carry their own expiry on the service clock (tests move time).
import { randomUUID } from 'node:crypto';
import type { Cache } from '../../infra/cache/cache.js';
import { hashTag } from '../../infra/cache/keys.js';
import { card } from './card.js';
import { UNKNOWN, type Looked, type Resolution } from './lookup.js';

export const INVALIDATION_CHANNEL = 'cards:invalidate';

// Which instances hold an in-process layer (each marks itself present every PRESENCE_EVERY_MS),
// and, per invalidation, how many of them have applied it (each counts itself in once).
const PRESENCE_KEY = 'cards:instances';
const ackKey = (id: string) => `cards:ack:${id}`;
/** An instance marks itself present this often… */
export const PRESENCE_EVERY_MS = 5_000;
/** …and counts as present this long after its last mark (two marks may be missed). */
export const PRESENCE_TTL_MS = 3 * PRESENCE_EVERY_MS;
/**
 * How long a change waits for every present instance to confirm it dropped its copies. Past it
 * the change goes on (an instance that silent is stopping, or cut off from Redis: it stops
 * serving from its in-process layer when its next mark fails).
 */
export const CONFIRM_WAIT_MS = 1_000;
const ACK_TTL_MS = 60_000;

interface InvalidationMessage {
  /** Absent from an instance of an older version: nothing to confirm. */
  id?: string;
  hosts: string[];
  tunnelIds: string[];
}

// A host's entry and generation share a cluster slot (one hash tag); different hosts spread out.
const entryKey = (host: string) => `card:h:${hashTag(host)}`;
const genKey = (host: string) => `card:g:${hashTag(host)}`;
const indexKey = (tunnelId: string) => `card:t:${tunnelId}`;

/** Generations outlive every entry by far, so a recreated counter cannot meet an old entry. */
const GEN_TTL_MS = 7 * 24 * 3600_000;

interface StoredEntry {
  /** Expiry on the service clock (ms). */
  e: number;
  /** Generation read before the database query. */
  g: string;
  /** Tunnel id, or null for an unknown host. */
  t: string | null;
  /** The seed card's JSON when discoverable. */
  b?: string;
  /** The v1 card's JSON when discoverable. */
  v?: string;
  /** The AI Catalog's JSON when discoverable. */
  c?: string;
  /** The protected resource metadata (null: public), on every entry of a tunnel. */
  p?: string | null;
}

export class SharedCardStore {
  constructor(private readonly cache: Cache) {}

  /** The current generation of the host; read before a database query. */
  async generation(host: string): Promise<string> {
    return (await this.cache.get(genKey(host))) ?? '0';
  }

  /** The stored resolution if present, unexpired and of the current generation; else null and the generation. */
  async read(host: string, now: number): Promise<{ hit: Resolution | null; generation: string }> {
    // One command for both (they share a slot): a miss is the hot path of a flood of unknown hosts.
    const [raw = null, gen = null] = await this.cache.getMany([entryKey(host), genKey(host)]);
    const generation = gen ?? '0';
    if (raw === null) return { hit: null, generation };
    const entry = JSON.parse(raw) as StoredEntry;
    if (entry.g !== generation || entry.e <= now) return { hit: null, generation };
    if (entry.t === null) return { hit: UNKNOWN, generation };
    // An entry written before the protected resource metadata (or the v1 documents) existed, by
    // an older instance of a rolling deploy, is looked up again.
    if (entry.p === undefined) return { hit: null, generation };
    if (entry.b === undefined) return { hit: { kind: 'none', tunnelId: entry.t, prm: entry.p }, generation };
    if (entry.v === undefined || entry.c === undefined) return { hit: null, generation };
    return { hit: card(entry.t, entry.b, entry.v, entry.c, entry.p), generation };
  }

  async write(host: string, looked: Looked, generation: string, now: number, ttlMs: number): Promise<void> {
    const r = looked.resolution;
    const entry: StoredEntry = { e: now + ttlMs, g: generation, t: r.tunnelId };
    if (r.tunnelId !== null) entry.p = r.prm;
    if (r.kind === 'card') {
      entry.b = r.json;
      entry.v = r.v1;
      entry.c = r.catalog;
    }
    const writes = [this.cache.set(entryKey(host), JSON.stringify(entry), ttlMs)];
    if (r.tunnelId !== null) writes.push(this.cache.set(indexKey(r.tunnelId), JSON.stringify(looked.tunnelHosts), ttlMs));
    await Promise.all(writes);
  }

  /** Drops the hosts (and every host indexed under the tunnel ids); returns all hosts dropped. */
  async invalidate(hosts: readonly string[], tunnelIds: readonly string[]): Promise<string[]> {
    const all = new Set(hosts);
    const indexed = await Promise.all(tunnelIds.map((id) => this.cache.get(indexKey(id))));
    for (const raw of indexed) for (const h of raw ? (JSON.parse(raw) as string[]) : []) all.add(h);
    const list = [...all];
    await Promise.all(list.map((h) => this.cache.hit(genKey(h), GEN_TTL_MS)));
    await this.cache.del(...list.map(entryKey));
    return list;
  }

  /** Marks this instance present (its in-process layer must hear every invalidation), or gone. */
  async markPresent(instance: string, present: boolean): Promise<void> {
    await this.cache.markPresent(PRESENCE_KEY, instance, present ? PRESENCE_TTL_MS : 0);
  }

  /**
   * Tells every instance, then waits until every instance present has applied it (each counts
   * itself in once it has), at most CONFIRM_WAIT_MS: the reply to the change goes out only once
   * no instance serves the old answer. Returns how many did not confirm in time.
   */
  async publish(hosts: readonly string[], tunnelIds: readonly string[]): Promise<number> {
    const id = randomUUID();
    const present = (await this.cache.present(PRESENCE_KEY)).length;
    const message: InvalidationMessage = { id, hosts: [...hosts], tunnelIds: [...tunnelIds] };
    await this.cache.publish(INVALIDATION_CHANNEL, JSON.stringify(message));
    const deadline = performance.now() + CONFIRM_WAIT_MS;
    for (let pause = 1; ; pause = Math.min(pause * 2, 20)) {
      const confirmed = present === 0 ? 0 : ((await this.cache.peek(ackKey(id)))?.count ?? 0);
      if (confirmed >= present) return 0;
      if (performance.now() >= deadline) return present - confirmed;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /** Applies every instance's invalidations here, then confirms each that asks for it. */
  subscribe(onChange: (hosts: string[], tunnelIds: string[]) => void, onError: (err: unknown) => void): Promise<() => Promise<void>> {
    return this.cache.subscribe(INVALIDATION_CHANNEL, (raw) => {
      const message = JSON.parse(raw) as InvalidationMessage;
      onChange(message.hosts, message.tunnelIds);
      if (message.id !== undefined) this.cache.hit(ackKey(message.id), ACK_TTL_MS).catch(onError);
    });
  }
}
