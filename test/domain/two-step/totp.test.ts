// TOTP itself (RFC 6238): the tests' own generator against the RFC's SHA-1 test vectors, and the
// server's code matcher against that generator: 6 digits, 30-second steps, one step of skew
// either way and no more.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchTotpStep, newTotpKey, totpSecretText, totpStep } from '../../../src/domain/two-step/totp.js';
import { base32Decode, codeAt, hotp, totp } from '../../support/totp.js';

// RFC 6238 appendix B, SHA-1 column: the seed is the ASCII string "12345678901234567890".
const RFC_KEY = Buffer.from('12345678901234567890', 'ascii');
const RFC_VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

test('the test generator reproduces the RFC 6238 SHA-1 vectors (8 digits) and their 6-digit truncations', () => {
  for (const [seconds, expected] of RFC_VECTORS) {
    assert.equal(totp(RFC_KEY, new Date(seconds * 1000), { digits: 8 }), expected, `T=${seconds}`);
    // Fewer digits are the same number modulo 10^6: the last six digits.
    assert.equal(totp(RFC_KEY, new Date(seconds * 1000)), expected.slice(2), `T=${seconds}, 6 digits`);
  }
  // RFC 4226 appendix D (the same key): HOTP counters 0 and 9.
  assert.equal(hotp(RFC_KEY, 0n), '755224');
  assert.equal(hotp(RFC_KEY, 9n), '520489');
});

test('the server accepts the RFC key\'s codes for the current step and one step either side, not two', () => {
  const key = new Uint8Array(RFC_KEY);
  const now = new Date(1111111111 * 1000);
  const step = totpStep(now);
  assert.equal(matchTotpStep(key, '050471', now), step, 'RFC vector at T=1111111111, truncated to 6 digits');
  for (const d of [-1, 0, 1]) {
    const at = new Date(now.getTime() + d * 30_000);
    assert.equal(matchTotpStep(key, totp(RFC_KEY, at), now), step + BigInt(d), `skew ${d}`);
  }
  for (const d of [-2, 2, 10]) {
    const at = new Date(now.getTime() + d * 30_000);
    assert.equal(matchTotpStep(key, totp(RFC_KEY, at), now), null, `skew ${d} is refused`);
  }
  assert.equal(matchTotpStep(key, '14050471', now), null, 'only 6 digits');
  assert.equal(matchTotpStep(key, 'abcdef', now), null);
});

test('a new key is 160 random bits whose base32 text the test generator reads back', () => {
  const key = newTotpKey();
  assert.equal(key.length, 20);
  const text = totpSecretText(key);
  assert.match(text, /^[A-Z2-7]{32}$/);
  assert.deepEqual(base32Decode(text), Buffer.from(key));
  const now = new Date();
  assert.equal(matchTotpStep(key, codeAt(text, now), now), totpStep(now));
  assert.notDeepEqual(newTotpKey(), key);
});
