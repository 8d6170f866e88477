// argon2 computations take turns: no more at once than ARGON2_AT_ONCE (one per core), every one
// answered, in order, whatever fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { argonParams } from '../../support/argon2.js';
import { ARGON2_AT_ONCE, argon2Running, PasswordHasher } from '../../../src/domain/passwords/password.js';

const passwords = new PasswordHasher();

test('many at once: at most one per core runs, and every one is answered', async () => {
  const hash = await passwords.hash('correct horse battery staple');
  let most = 0;
  const sampler = setInterval(() => (most = Math.max(most, argon2Running())), 1);
  const many = ARGON2_AT_ONCE * 3 + 1;
  const checks = await Promise.all(
    Array.from({ length: many }, (_, i) => passwords.verify(hash, i % 2 === 0 ? 'correct horse battery staple' : 'wrong password')),
  );
  clearInterval(sampler);
  assert.deepEqual(checks.map((c) => c.valid), Array.from({ length: many }, (_, i) => i % 2 === 0));
  assert.ok(most >= 1 && most <= ARGON2_AT_ONCE, `at most ${ARGON2_AT_ONCE} at once (saw ${most})`);
  assert.equal(argon2Running(), 0, 'every slot is given back');
});

test('a failed computation gives its turn back', async () => {
  const attempts = Array.from({ length: ARGON2_AT_ONCE + 2 }, () => passwords.verify('not a hash', 'x'));
  assert.ok((await Promise.all(attempts)).every((c) => !c.valid));
  assert.equal(argon2Running(), 0);
  assert.equal((await passwords.verify(await passwords.hash('another good one'), 'another good one')).valid, true);
});

test("a hasher built without a cost hashes at OWASP's argon2id minimum; a cheaper one's hashes are re-hashed by it", async () => {
  assert.equal(argonParams(await passwords.hash('correct horse battery staple')), 'argon2id m=19456 t=2 p=1');
  const cheap = await new PasswordHasher({ memoryCost: 1024, timeCost: 1 }).hash('correct horse battery staple');
  assert.equal(argonParams(cheap), 'argon2id m=1024 t=1 p=1');
  const check = await passwords.verify(cheap, 'correct horse battery staple');
  assert.equal(check.valid, true);
  assert.equal(argonParams(check.rehash), 'argon2id m=19456 t=2 p=1');
});
