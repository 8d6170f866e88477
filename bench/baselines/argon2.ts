// Baseline for logins: raw argon2id verifications with the server's own parameters, at the same
// concurrency as the login load, in its own long-lived process like the server. It reads one
// command per line on stdin, `{"seconds": s}` or `{"amount": n}`, runs that many verifications
// (or for that long) and answers `{"done": n, "seconds": s}` on stdout; the harness reads this
// process's CPU time from /proc around each command.
import { createInterface } from 'node:readline';
import argon2 from 'argon2';
import { argon2Options } from '../../src/domain/passwords/password.js';

const PASSWORD = 'bench password 1';
const concurrency = Number(process.env.BENCH_CONNECTIONS ?? 8);
const hash = await argon2.hash(PASSWORD, argon2Options());

async function run(cmd: { seconds?: number; amount?: number }): Promise<{ done: number; seconds: number }> {
  const started = performance.now();
  const deadline = cmd.seconds !== undefined ? Date.now() + cmd.seconds * 1000 : Infinity;
  const amount = cmd.amount ?? Infinity;
  let taken = 0;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (taken < amount && Date.now() < deadline) {
        taken++;
        if (!(await argon2.verify(hash, PASSWORD))) throw new Error('verify failed');
        done++;
      }
    }),
  );
  return { done, seconds: (performance.now() - started) / 1000 };
}

process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  process.stdout.write(JSON.stringify(await run(JSON.parse(line) as { seconds?: number; amount?: number })) + '\n');
}
