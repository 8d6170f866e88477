// The pooled random source behind tokens and session ids (src/infra/crypto/random.ts): no byte is
// handed out twice, across the pool's refills, and its UUIDv7s are well formed and time-ordered.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomView, timeOrderedUuid } from '../../../src/infra/crypto/random.js';
import { generateToken } from '../../../src/infra/crypto/tokens.js';

test('draws never repeat across refills of the pool, whatever their sizes', () => {
  const seen = new Set<string>();
  // About 40 KiB in draws of 1 to 37 bytes: the 4 KiB pool is refilled about ten times, with draws
  // that straddle its end. A repeated 16-byte window would mean bytes handed out twice.
  let total = 0;
  const stream: number[] = [];
  for (let i = 0; total < 40_000; i++) {
    const n = (i % 37) + 1;
    const view = randomView(n);
    assert.equal(view.length, n);
    stream.push(...view);
    total += n;
  }
  for (let i = 0; i + 16 <= stream.length; i += 16) {
    const window = Buffer.from(stream.slice(i, i + 16)).toString('hex');
    assert.ok(!seen.has(window), `bytes ${i}..${i + 15} were handed out before`);
    seen.add(window);
  }
  // Not all zeros or a constant: each byte value turns up (40,000 bytes, 256 values).
  assert.equal(new Set(stream).size, 256);
  // A draw larger than the pool is its own.
  assert.equal(randomView(10_000).length, 10_000);
});

test('tokens drawn past several refills are all distinct', () => {
  const tokens = new Set(Array.from({ length: 2_000 }, () => generateToken()));
  assert.equal(tokens.size, 2_000);
});

test('UUIDv7: version 7, RFC 9562 variant, distinct, and ordered by their millisecond', async () => {
  const ids = Array.from({ length: 1_000 }, () => timeOrderedUuid());
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(new Set(ids).size, ids.length);
  const before = timeOrderedUuid();
  await new Promise((r) => setTimeout(r, 3));
  const after = timeOrderedUuid();
  assert.ok(before < after, `${before} sorts before ${after}`);
  const ms = parseInt(after.replace(/-/g, '').slice(0, 12), 16);
  assert.ok(Math.abs(ms - Date.now()) < 1_000, 'the first 48 bits are the Unix time in milliseconds');
});
