// The in-process layer of the card cache: a Map with a size bound and per-entry expiry. Past the
// bound the oldest insertion goes first, so a flood of distinct hosts costs at most `max` entries.

interface Slot<V> {
  readonly value: V;
  readonly expiresAt: number;
}

export class BoundedTtlMap<V> {
  private readonly slots = new Map<string, Slot<V>>();
  /** Counts every change of the contents (a caller's memo of an answer is good while it stands). */
  mutations = 0;

  constructor(private readonly max: number) {}

  get(key: string, now: number): V | undefined {
    return this.slot(key, now)?.value;
  }

  /** The live entry with its expiry; an expired one is dropped. */
  slot(key: string, now: number): Slot<V> | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    if (slot.expiresAt <= now) {
      this.slots.delete(key);
      this.mutations++;
      return undefined;
    }
    return slot;
  }

  set(key: string, value: V, expiresAt: number): void {
    this.mutations++;
    this.slots.delete(key);
    this.slots.set(key, { value, expiresAt });
    if (this.slots.size > this.max) {
      const oldest = this.slots.keys().next().value;
      if (oldest !== undefined) this.slots.delete(oldest);
    }
  }

  delete(key: string): void {
    if (this.slots.delete(key)) this.mutations++;
  }

  /** Drops every entry whose value matches (rare: a tunnel or an account went away). */
  deleteWhere(match: (value: V) => boolean): void {
    for (const [key, slot] of this.slots) if (match(slot.value)) this.slots.delete(key);
    this.mutations++;
  }

  clear(): void {
    this.slots.clear();
    this.mutations++;
  }

  get size(): number {
    return this.slots.size;
  }
}
