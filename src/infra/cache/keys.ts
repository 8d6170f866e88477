// Keys and Redis Cluster hash slots. A multi-key script or pipeline must keep all its keys in one
// slot; a key's slot is CRC16 of its hash tag (the text between the first `{` and the next `}`,
// when non-empty) or of the whole key. Domain modules build related keys around one tag:
// `view:{<id>}:v` and `view:{<id>}:7` share a slot, so one script reads both.

/** `{id}`: the part of a key that decides its slot. */
export function hashTag(id: string): string {
  return `{${id}}`;
}

const TABLE = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let j = 0; j < 8; j++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
    t[i] = c;
  }
  return t;
})();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ b) & 0xff]!;
  return crc;
}

/** The cluster slot (0..16383) of a key, as Redis computes it. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  return crc16(Buffer.from(key, 'utf8')) % 16384;
}

/** Throws when the keys fall in more than one slot: a programming error a cluster would reject. */
export function assertOneSlot(...keys: string[]): void {
  const slot = keySlot(keys[0] ?? '');
  for (const k of keys) {
    if (keySlot(k) !== slot) throw new Error(`keys in different cluster slots: ${keys.join(', ')} (use one hash tag)`);
  }
}
