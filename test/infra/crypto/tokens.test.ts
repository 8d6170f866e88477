// Session and link tokens are stored only as their SHA-256: the hash must never change between
// releases, or every stored session and emailed link would stop matching.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  generateTimeOrderedToken,
  generateToken,
  hashToken,
  isWellFormedTimeOrderedToken,
  isWellFormedToken,
  sameSecret,
  timeOrderedTokenKey,
} from '../../../src/infra/crypto/tokens.js';

test('hashToken is the hex SHA-256 of the UTF-8 bytes (FIPS 180-2 vectors)', () => {
  assert.equal(hashToken('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(hashToken(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  // Non-ASCII text hashes its UTF-8 encoding ("é" is c3 a9).
  assert.equal(hashToken('\u00e9'), '4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
});

test('generated tokens are 20 random bytes in base32, well formed, and distinct', () => {
  const a = generateToken();
  const b = generateToken();
  assert.match(a, /^[a-z2-7]{32}$/);
  assert.ok(isWellFormedToken(a));
  assert.notEqual(a, b);
  assert.notEqual(hashToken(a), hashToken(b));
  assert.equal(isWellFormedToken('A'.repeat(32)), false);
  assert.equal(isWellFormedToken(a + 'a'), false);
});

test('time-ordered tokens: the creation second, then 20 random bytes; their keys sort by time, after every bare hash', () => {
  const at = new Date('2026-11-29T06:00:00.750Z');
  const t = generateTimeOrderedToken(at);
  assert.match(t, /^[0-9a-v]{8}[a-z2-7]{32}$/);
  assert.equal(parseInt(t.slice(0, 8), 32), Math.floor(at.getTime() / 1000));
  assert.notEqual(generateTimeOrderedToken(at).slice(8), t.slice(8), 'the secret part is random');
  assert.equal(timeOrderedTokenKey(t), `t${t.slice(0, 8)}${hashToken(t)}`);
  // Keys of tokens made later sort later (as the database's index orders text), whatever their
  // random part; every key sorts after any bare SHA-256 (a 32-character token's key).
  const times = [0, 31, 32, 1023, 1024, 1_800_000_000, 1_800_000_001, 2_000_000_000, 40_000_000_000].map((s) => new Date(s * 1000));
  const keys = times.map((d) => timeOrderedTokenKey(generateTimeOrderedToken(d)));
  assert.deepEqual([...keys].sort(), keys);
  assert.ok(keys.every((k) => k > 'f'.repeat(64)));
  // Both forms are well formed; a plain token's key is its bare hash.
  const plain = generateToken();
  assert.ok(isWellFormedTimeOrderedToken(t));
  assert.ok(isWellFormedTimeOrderedToken(plain));
  assert.equal(timeOrderedTokenKey(plain), hashToken(plain));
  for (const bad of [t.slice(1), `${t}a`, `w${t.slice(1)}`, t.toUpperCase(), `${t.slice(0, 8)}${'1'.repeat(32)}`, plain.slice(1), 42, null]) {
    assert.equal(isWellFormedTimeOrderedToken(bad), false, String(bad));
  }
});

test('sameSecret compares whole values', () => {
  assert.ok(sameSecret('secret-value', 'secret-value'));
  assert.equal(sameSecret('secret-value', 'secret-valuE'), false);
  assert.equal(sameSecret('secret', 'secret-value'), false);
});
