// Accounts hot paths: authenticated GraphQL `me` and REST GET /api/account against a bare Yoga
// server, logins against raw argon2 verifications, and the server's resident memory afterwards.
import { spawnSync } from 'node:child_process';
import { ACCOUNT_QUERY } from '../../src/adapters/rest/routes/accounts.js';
import { measure, startBareYoga, startServer, type BenchResult, type Measurement } from '../lib.js';

async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

export default async function accounts(): Promise<BenchResult> {
  const notes: string[] = [];
  const yoga = await startBareYoga();
  const hello = await measure({
    url: yoga.url,
    path: '/graphql',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ hello }' }),
    expectStatus: 200,
  });
  await yoga.stop();

  const server = await startServer();
  const email = `bench-${Date.now()}@example.com`;
  const password = 'bench password 1';
  const signup = await post(server.url, '/auth/signup', { email, password });
  if (signup.status !== 201) throw new Error(`signup failed: ${signup.status}`);
  const login = await post(server.url, '/auth/login', { email, password });
  const token = String(login.json?.token);
  const auth = { authorization: `Bearer ${token}` };

  const me = await measure({
    url: server.url,
    path: '/graphql',
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ query: ACCOUNT_QUERY }),
    expectStatus: 200,
  });
  const rest = await measure({ url: server.url, path: '/api/account', headers: auth, expectStatus: 200 });

  const connections = 8;
  const logins = await measure({
    url: server.url,
    path: '/auth/login',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
    connections,
    expectStatus: 200,
  });
  const rss = server.rssMiB();
  await server.stop();

  const argon = spawnSync(process.execPath, ['--import', 'tsx', 'bench/baselines/argon2.ts'], {
    env: { ...process.env, BENCH_CONNECTIONS: String(connections) },
    encoding: 'utf8',
  });
  const perSecond = Number((JSON.parse(argon.stdout.trim().split('\n').pop() ?? '{}') as { perSecond?: number }).perSecond ?? NaN);
  const argonMeasure: Measurement = { rps: perSecond, p99: 0, errors: 0, unexpected: 0 };

  for (const [name, m] of [['me', me], ['rest', rest], ['logins', logins]] as const) {
    if (m.errors || m.unexpected) notes.push(`${name}: ${m.errors} errors, ${m.unexpected} unexpected statuses`);
  }
  notes.push(`REST GET /api/account vs GraphQL me (same fields): ${(rest.rps / me.rps).toFixed(2)} of GraphQL req/s (target within 10%: ≥ 0.90)`);
  notes.push(`login overhead beyond argon2: ${((1 - logins.rps / perSecond) * 100).toFixed(1)}% (target ≤ 10%)`);
  notes.push(`server resident memory after the accounts benchmarks: ${rss.toFixed(0)} MiB (target ≤ 250 MiB) on ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL + Redis' : 'embedded PGlite + memory cache'}`);
  return {
    rows: [
      { name: 'GraphQL `me` (bearer)', value: me, baselineName: 'bare Yoga `{ hello }`', baseline: hello, target: '≥ 0.6' },
      { name: 'REST GET /api/account (bearer)', value: rest, baselineName: 'bare Yoga `{ hello }`', baseline: hello, target: 'within 10% of `me`' },
      { name: 'POST /auth/login', value: logins, baselineName: 'raw argon2id verify/s', baseline: argonMeasure, target: '≥ 0.9' },
    ],
    notes,
  };
}
