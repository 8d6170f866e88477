// argon2 computations take turns: no more at once than ARGON2_AT_ONCE (one per core), every one
// answered, in order, whatever fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARGON2_AT_ONCE, argon2Running, hashPassword, verifyPassword } from '../../../src/domain/passwords/password.js';

test('many at once: at most one per core runs, and every one is answered', async () => {
  const hash = await hashPassword('correct horse battery staple');
  let most = 0;
  const sampler = setInterval(() => (most = Math.max(most, argon2Running())), 1);
  const many = ARGON2_AT_ONCE * 3 + 1;
  const checks = await Promise.all(
    Array.from({ length: many }, (_, i) => verifyPassword(hash, i % 2 === 0 ? 'correct horse battery staple' : 'wrong password')),
  );
  clearInterval(sampler);
  assert.deepEqual(checks.map((c) => c.valid), Array.from({ length: many }, (_, i) => i % 2 === 0));
  assert.ok(most >= 1 && most <= ARGON2_AT_ONCE, `at most ${ARGON2_AT_ONCE} at once (saw ${most})`);
  assert.equal(argon2Running(), 0, 'every slot is given back');
});

test('a failed computation gives its turn back', async () => {
  const attempts = Array.from({ length: ARGON2_AT_ONCE + 2 }, () => verifyPassword('not a hash', 'x'));
  assert.ok((await Promise.all(attempts)).every((c) => !c.valid));
  assert.equal(argon2Running(), 0);
  assert.equal((await verifyPassword(await hashPassword('another good one'), 'another good one')).valid, true);
});
