// forgot-password takes the same time for known and unknown addresses: the lookup, the limit
// and the email of a known address happen after the reply, so timing tells nothing either.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signup } from '../../support/accounts.js';
import { uniqueEmail, useServer } from '../../support/server.js';

const s = useServer();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(email: string): Promise<number> {
  const started = performance.now();
  const r = await s.request('/auth/forgot-password', { method: 'POST', body: { email } });
  assert.equal(r.status, 204);
  return performance.now() - started;
}

test('forgot-password answers known and unknown addresses in the same time', async () => {
  const accounts = [];
  for (let i = 0; i < 15; i++) accounts.push(await signup(s));
  // Warm both paths up, then interleave them; each known address gets its first reset link.
  await timed(uniqueEmail('ghost'));
  const k: number[] = [];
  const u: number[] = [];
  for (const known of accounts) {
    u.push(await timed(uniqueEmail('ghost')));
    k.push(await timed(known.email));
  }
  const [mk, mu] = [median(k), median(u)];
  assert.ok(Math.abs(mk - mu) < 3, `known ${mk.toFixed(2)} ms vs unknown ${mu.toFixed(2)} ms`);
  // Every known address still got its reset link.
  for (const known of accounts) await s.smtp.waitFor(known.email, 'reset-password');
});
