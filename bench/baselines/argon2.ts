// Baseline for logins: raw argon2id verifications per second with the server's own parameters,
// at the same concurrency as the login load, in its own process like the server.
import argon2 from 'argon2';
import { HASH_OPTIONS } from '../../src/domain/accounts/password.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const concurrency = Number(process.env.BENCH_CONNECTIONS ?? 8);
const hash = await argon2.hash('bench password 1', HASH_OPTIONS);
let done = 0;
const deadline = Date.now() + seconds * 1000;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (Date.now() < deadline) {
      if (!(await argon2.verify(hash, 'bench password 1'))) throw new Error('verify failed');
      done++;
    }
  }),
);
process.stdout.write(JSON.stringify({ perSecond: done / seconds }) + '\n');
