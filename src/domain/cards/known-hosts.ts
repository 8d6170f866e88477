// Which hosts can have a tunnel: a Bloom filter of every tunnel's card hosts (`<sub>--<slug>.ZONE`
// and its custom domain), so a request for a host no tunnel has is answered 404 in process,
// without Redis or the database. A crawler or a flood of random subdomains then costs what a
// cached 404 costs; only the filter's false positives (about 1 in 100 of unknown hosts) and real
// tunnel hosts go on to the lookup.
//
// The filter only ever says "surely not": a host it has may still be unknown (a false positive,
// a deleted tunnel), and the lookup answers. So it must never miss a host that has a tunnel:
// - it is built from the database (a keyset scan of the tunnels with their owners' slugs, page by
//   page) and trusted only once built; the invalidations the resolver hears (every instance hears
//   every tunnel change, new hosts included) add their hosts, meanwhile too, to the filter being
//   built;
// - it is rebuilt every REBUILD_MS on the service clock (at the next request after that), which
//   also shows, within that time, a tunnel written behind the service's back or whose change
//   message was lost while Redis reconnected, and sheds deleted tunnels' hosts.
import type { Sql } from '../store.js';
import { cardHostsOf } from '../tunnels/names.js';
import { countTunnels, selectTunnelHostsPage, TUNNEL_HOSTS_PAGE, type TunnelHostsCursor } from './store.js';

/** The filter is rebuilt this long after the last build began. */
export const REBUILD_MS = 5 * 60_000;
/** Room for growth until the next build: sized for twice the hosts found, at least this many. */
const MIN_CAPACITY = 65_536;
/** Bits per host and probes per lookup for a false-positive rate near 1% (k = 7, ~9.6 bits each). */
const BITS_PER_HOST = 10;
const PROBES = 7;

/** A Bloom filter over strings (double hashing of two 32-bit FNV-1a hashes with different offsets). */
export class BloomFilter {
  private readonly bits: Uint32Array;
  private readonly size: number;

  constructor(capacity: number) {
    this.size = Math.max(1024, Math.ceil(capacity * BITS_PER_HOST / 32) * 32);
    this.bits = new Uint32Array(this.size / 32);
  }

  add(key: string): void {
    let h1 = hash(key, 0x811c9dc5);
    const h2 = hash(key, 0x01000193) | 1;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 >>> 0) % this.size;
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
      h1 = (h1 + h2) | 0;
    }
  }

  has(key: string): boolean {
    let h1 = hash(key, 0x811c9dc5);
    const h2 = hash(key, 0x01000193) | 1;
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 >>> 0) % this.size;
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
      h1 = (h1 + h2) | 0;
    }
    return true;
  }
}

function hash(key: string, offset: number): number {
  let h = offset;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // A final mix spreads the short hosts' hashes over every bit.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h;
}

export class KnownHosts {
  /** The filter in use; null until the first build has finished. */
  private current: BloomFilter | null = null;
  /** The filter a build is filling (the invalidations meanwhile go into it too). */
  private building: BloomFilter | null = null;
  /** When the last build began, on the service clock (ms). */
  private builtAt = Number.NEGATIVE_INFINITY;
  private stopped = false;
  /** Set by the first build: only then does a due filter rebuild itself. */
  private started = false;
  /** Counts every change of what the filter answers (an add, a new filter): a memo of an answer is good while it stands. */
  version = 0;

  constructor(
    private readonly sql: Sql,
    private readonly zone: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  /**
   * False only when no tunnel has the host; true when one may (or before the first build).
   * Starts a rebuild in the background when the filter is due one.
   */
  mayHave(host: string, now: number): boolean {
    if (this.started && now - this.builtAt >= REBUILD_MS && this.building === null && !this.stopped) this.rebuild(now).catch(this.onError);
    return this.current === null || this.current.has(host);
  }

  /** When the filter is due its next rebuild (service clock, ms). */
  get dueAt(): number {
    return this.builtAt + REBUILD_MS;
  }

  /** Hosts a tunnel has now (an invalidation names them): never filtered out from here on. */
  add(hosts: readonly string[]): void {
    this.version++;
    for (const h of hosts) {
      this.current?.add(h);
      this.building?.add(h);
    }
  }

  /** Builds a new filter from the database and puts it in use; the old one serves meanwhile. */
  async rebuild(now: number): Promise<void> {
    if (this.building !== null || this.stopped) return;
    this.started = true;
    this.builtAt = now;
    const filter = new BloomFilter(Math.max(MIN_CAPACITY, (await countTunnels(this.sql)) * 2 * 2));
    this.building = filter;
    try {
      let after: TunnelHostsCursor = { accountId: '', subdomain: '' };
      for (;;) {
        if (this.stopped) return;
        const rows = await selectTunnelHostsPage(this.sql, after);
        for (const r of rows) for (const h of cardHostsOf(r, r.slug, this.zone)) filter.add(h);
        if (rows.length < TUNNEL_HOSTS_PAGE) break;
        after = rows[rows.length - 1]!;
      }
      this.current = filter;
      this.version++;
    } finally {
      this.building = null;
    }
  }

  stop(): void {
    this.stopped = true;
  }
}
