// Which hosts can have a tunnel: a Bloom filter of every tunnel's card hosts (`<sub>--<slug>.ZONE`
// and its custom domain), so a request for a host no tunnel has is answered 404 in process,
// without Redis or the database. A crawler or a flood of random subdomains then costs what a
// cached 404 costs; only the filter's false positives (about 1 in 100 of unknown hosts) and real
// tunnel hosts go on to the lookup.
//
// The filter only ever says "surely not": a host it has may still be unknown (a false positive,
// a deleted tunnel), and the lookup answers. So it must never miss a host that has a tunnel
// (ADR 24):
// - it is built once from the database (keyset pages of the tunnels with their owners' slugs)
//   and trusted once built; the invalidations the resolver hears (every instance hears every
//   tunnel change, new hosts included) add their hosts, meanwhile too;
// - every CHECK_MS on the service clock (at the next request after that) it reads what changed
//   since its watermark, through the hosts_xid indexes the database keeps (migration
//   20261206000000): a tunnel written behind the service's back, or whose change message was lost
//   while Redis reconnected, shows within that time, and the check costs what changed, not what
//   exists;
// - it is built again only when it has taken in as many hosts as it was sized for (deleted
//   tunnels' hosts stay in it until then: a lookup answers them), or when one check finds more
//   changes than a build would read pages for. Its upkeep grows with the changes, not the tunnels.
import type { Sql } from '../store.js';
import { cardHostsOf } from '../tunnels/names.js';
import { HOSTS_CHANGED_MAX, hostsWatermark, selectHostsChanged, selectTunnelHostsPage, TUNNEL_HOSTS_PAGE, type TunnelHostsCursor } from './store.js';

/** The filter reads what changed this long after its last read (build or check) began. */
export const CHECK_MS = 60_000;
/** Sized for four hosts per tunnel the planner estimates (or twice the hosts the last build found), at least this many. */
const MIN_CAPACITY = 65_536;
/** Bits per host and probes per lookup for a false-positive rate near 1% (k = 7, ~9.6 bits each). */
const BITS_PER_HOST = 10;
const PROBES = 7;

/** A Bloom filter over strings (double hashing of two 32-bit FNV-1a hashes with different offsets). */
export class BloomFilter {
  private readonly bits: Uint32Array;
  private readonly size: number;
  /** Hosts added so far (a host added twice counts twice: the count only over-estimates the fill). */
  count = 0;

  constructor(readonly capacity: number) {
    this.size = Math.max(1024, Math.ceil(capacity * BITS_PER_HOST / 32) * 32);
    this.bits = new Uint32Array(this.size / 32);
  }

  add(key: string): void {
    this.count++;
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
  /** Where the next check reads from (hosts_xid at or after it); null until a build has finished. */
  private watermark: string | null = null;
  /** When the last build or check began, on the service clock (ms). */
  private readAt = Number.NEGATIVE_INFINITY;
  /** The build or check under way: one at a time. */
  private work: Promise<void> | null = null;
  /** Hosts the last finished build found: the next one is sized for at least twice as many. */
  private lastBuilt = 0;
  /** A check found more changed than it reads right after a build: the next request builds again. */
  private buildDue = false;
  private stopped = false;
  /** Set by the first build: only then does the filter keep itself current on requests. */
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
   * Starts a check (or a build, when the filter is full or none has finished) in the background
   * when one is due.
   */
  mayHave(host: string, now: number): boolean {
    if (this.started && this.work === null && !this.stopped) {
      const full = this.buildDue || (this.current !== null && this.current.count > this.current.capacity);
      if (full || now - this.readAt >= CHECK_MS) this.start(now, full || this.current === null);
    }
    return this.current === null || this.current.has(host);
  }

  /** When the filter is due its next check (service clock, ms). */
  get dueAt(): number {
    return this.readAt + CHECK_MS;
  }

  /** Hosts a tunnel has now (an invalidation names them): never filtered out from here on. */
  add(hosts: readonly string[]): void {
    this.version++;
    for (const h of hosts) {
      this.current?.add(h);
      this.building?.add(h);
    }
  }

  /** Builds a new filter from the database and puts it in use (the old one serves meanwhile), then reads what changed during the build. */
  rebuild(now: number): Promise<void> {
    this.started = true;
    return this.start(now, true);
  }

  /** Reads what changed since the watermark (a build when none has finished). */
  check(now: number): Promise<void> {
    return this.start(now, this.watermark === null);
  }

  private start(now: number, build: boolean): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.work) return this.work;
    this.readAt = now;
    // Settled either way: a failure is reported, and the next due request tries again.
    const work = (build ? this.build() : this.readChanges(true)).catch(this.onError).finally(() => {
      this.work = null;
    });
    this.work = work;
    return work;
  }

  private async build(): Promise<void> {
    this.buildDue = false;
    const { watermark, tunnels } = await hostsWatermark(this.sql);
    const filter = new BloomFilter(Math.max(MIN_CAPACITY, Math.ceil(tunnels) * 4, this.lastBuilt * 2));
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
    } finally {
      this.building = null;
    }
    this.lastBuilt = filter.count;
    this.current = filter;
    this.watermark = watermark;
    this.version++;
    // What changed while the pages were read (behind the cursor, or behind the service's back).
    await this.readChanges(false);
  }

  /** Reads what changed since the watermark; with too much changed, builds again (or, right after a build, has the next check do so). */
  private async readChanges(mayBuild: boolean): Promise<void> {
    const changed = await selectHostsChanged(this.sql, this.watermark!);
    if (changed.rows.length > HOSTS_CHANGED_MAX) {
      // A bulk change: the pages of a build read it for less than this check's rows would cost.
      if (mayBuild) return this.build();
      this.buildDue = true;
      return;
    }
    if (changed.rows.length > 0) this.add(changed.rows.flatMap((r) => cardHostsOf(r, r.slug, this.zone)));
    this.watermark = changed.watermark;
  }

  stop(): void {
    this.stopped = true;
  }
}
