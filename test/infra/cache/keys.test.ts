// Hash slots as Redis Cluster computes them, and the key families that must share one: a script
// or pipeline whose keys span slots is refused by a cluster (CROSSSLOT).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertOneSlot, hashTag, keySlot } from '../../../src/infra/cache/keys.js';

test('keySlot matches the Redis Cluster specification', () => {
  assert.equal(keySlot('123456789'), 0x31c3 % 16384); // CRC16-XMODEM check value
  assert.equal(keySlot('foo'), 12182); // CLUSTER KEYSLOT foo
  assert.equal(keySlot('{user1000}.following'), keySlot('{user1000}.followers'));
  assert.equal(keySlot('{user1000}.following'), keySlot('user1000'));
  // An empty tag does not count: the whole key is hashed.
  assert.notEqual(keySlot('foo{}{bar}'), keySlot('bar'));
  assert.equal(keySlot('foo{{bar}}zap'), keySlot('{bar'));
});

test('keys built around one hash tag share a slot; untagged ones spread', () => {
  const id = '6f1c2a4e-1111-4c1a-9c6e-0d7f2b3a4c5d';
  assertOneSlot(`view:${hashTag(id)}:v`, `view:${hashTag(id)}:0`, `view:${hashTag(id)}:17`);
  assertOneSlot(`card:h:${hashTag('a--b.tunnels.example.com')}`, `card:g:${hashTag('a--b.tunnels.example.com')}`);
  assert.throws(() => assertOneSlot('view:a:v', 'view:b:v'), /different cluster slots/);
  const slots = new Set(Array.from({ length: 200 }, (_, i) => keySlot(`session:${i}`)));
  assert.ok(slots.size > 190, 'untagged keys spread over the slots');
});
