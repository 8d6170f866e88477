// An instance's copies of owners' tunnel lists (an organization's holds up to 1,000 tunnels),
// each kept with the owner's `tunnels_version` it was read at and the slug its hosts were made
// from. The database moves that version in the transaction of every change to the owner's
// tunnels (a trigger, migration 20261205000000_tunnels_version), whichever code path or instance
// makes it, and the caller reads it with the owner row it reads anyway (the organization and the
// caller's role): so a copy is served only while nothing changed, with no message between the
// instances and no extra statement. A list read after the version was read can only be newer
// than that version, never older, so storing it under that version never serves stale tunnels.
//
// It holds only what a list shows (no authorization: the caller's access is decided before it
// asks), and at most `maxTunnels` tunnels in all; the least recently used lists go first.
import type { TunnelView } from './tunnel-view.js';

/** Arbitrary: about 0.5 KiB per tunnel view, so a few MiB per instance at most. */
export const OWNER_LISTS_MAX_TUNNELS = 10_000;

interface Entry {
  version: bigint;
  slug: string;
  views: readonly TunnelView[];
}

export class OwnerTunnelLists {
  /** Least recently used first (a Map keeps insertion order; a hit moves its entry last). */
  private readonly entries = new Map<string, Entry>();
  private held = 0;

  constructor(private readonly maxTunnels = OWNER_LISTS_MAX_TUNNELS) {}

  /** The owner's tunnels if a copy was read at this version with this slug. */
  get(ownerId: string, version: bigint, slug: string): readonly TunnelView[] | undefined {
    const entry = this.entries.get(ownerId);
    if (entry === undefined) return undefined;
    if (entry.version !== version || entry.slug !== slug) {
      this.drop(ownerId, entry);
      return undefined;
    }
    this.entries.delete(ownerId);
    this.entries.set(ownerId, entry);
    return entry.views;
  }

  /** Keeps a list read at `version` (frozen: every request that gets it shares it). */
  set(ownerId: string, version: bigint, slug: string, views: TunnelView[]): readonly TunnelView[] {
    for (const v of views) {
      Object.freeze(v.pinnedTools);
      Object.freeze(v.allowedEmails);
      Object.freeze(v.owner);
      Object.freeze(v);
    }
    const frozen = Object.freeze(views);
    if (views.length > this.maxTunnels) return frozen;
    const old = this.entries.get(ownerId);
    // Two requests may read at once; an older version never replaces a newer one.
    if (old !== undefined && old.version > version) return frozen;
    if (old !== undefined) this.drop(ownerId, old);
    this.entries.set(ownerId, { version, slug, views: frozen });
    this.held += views.length;
    for (const [id, entry] of this.entries) {
      if (this.held <= this.maxTunnels) break;
      this.drop(id, entry);
    }
    return frozen;
  }

  /** How many tunnels the copies hold (tests). */
  get size(): number {
    return this.held;
  }

  private drop(ownerId: string, entry: Entry): void {
    this.entries.delete(ownerId);
    this.held -= entry.views.length;
  }
}
