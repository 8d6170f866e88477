// Session and link tokens are stored only as their SHA-256: the hash must never change between
// releases, or every stored session and emailed link would stop matching.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateToken, hashToken, isWellFormedToken, sameSecret } from '../../../src/infra/crypto/tokens.js';

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

test('sameSecret compares whole values', () => {
  assert.ok(sameSecret('secret-value', 'secret-value'));
  assert.equal(sameSecret('secret-value', 'secret-valuE'), false);
  assert.equal(sameSecret('secret', 'secret-value'), false);
});
