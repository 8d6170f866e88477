// Accounts hot paths: authenticated GraphQL `me` and REST GET /api/account against a bare Yoga
// server (with a session and with a service token), REST GET /api/tunnels with a token against the
// same with a session, logins against raw argon2id verifications (the CPU a login spends beyond
// the hash it contains), and the server's resident memory afterwards.
import { ACCOUNT_QUERY } from '../../src/adapters/rest/routes/accounts.js';
import {
  alternate,
  compare,
  cpuText,
  httpTarget,
  measure,
  median,
  startArgon2Baseline,
  startBareYoga,
  startServer,
  verifyFromOutbox,
  ROUNDS,
  SERVER_ALLOCATOR_ENV,
  SERVER_ALLOCATOR_TEXT,
  WINDOW_SECONDS,
  type BenchResult,
} from '../lib.js';

async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

/** Concurrent logins (and concurrent verifications in the baseline): the same for both. */
const LOGIN_CONNECTIONS = 8;
/**
 * Accounts the logins take turns on. An account holds at most 100 sessions and its 101st sign-in
 * evicts the least recently used one (a tombstone write a typical login never pays), so the
 * logins are spread thinly enough that none of them reaches the cap: the figure is a typical
 * login's.
 */
const LOGIN_ACCOUNTS = 120;
/**
 * Logins before anything is counted: V8 keeps compiling the login path's code (GraphQL, Prisma,
 * pg, ioredis) for its first few thousand runs, and its compiler threads count in the process's
 * CPU. Traced with --trace-opt (29 November): the 600 logins after 1,500 warm-up ones triggered
 * 51 TurboFan compilations, 368 ms of compiler CPU (0.61 ms per login, about 3% of one); after
 * 4,000, 12 compilations and 40 ms (0.07 ms per login). The figure is the steady state a
 * running server reaches.
 */
const LOGIN_WARMUP = 4000;
/** How long the server idles after the last login before its resident memory is read again. */
const SETTLE_MS = 30_000;

export default async function accounts(): Promise<BenchResult> {
  const notes: string[] = [];
  const yoga = await startBareYoga();
  // The login accounts are all signed up from this one loopback network.
  const server = await startServer({ SIGNUP_RATE_LIMIT: String(LOGIN_ACCOUNTS + 10) });
  const password = 'bench password 1';
  const emails = Array.from({ length: LOGIN_ACCOUNTS }, (_, i) => `bench-${Date.now()}-${i}@example.com`);
  for (const address of emails) {
    const signup = await post(server.url, '/auth/signup', { email: address, password });
    if (signup.status !== 201) throw new Error(`signup failed: ${signup.status}`);
  }
  const email = emails[0]!;
  await verifyFromOutbox(server.url, server.dataDir);
  const login = await post(server.url, '/auth/login', { email, password });
  const token = String(login.json?.token);
  const auth = { authorization: `Bearer ${token}` };
  // A service token with every scope (created by the freshly signed-in, verified session), and a
  // few tunnels for the list.
  const created = await post(server.url, '/api/tokens', { name: 'bench', scopes: ['tunnels:read', 'tunnels:write', 'account:read'] }, auth);
  if (created.status !== 201) throw new Error(`token: ${created.status} ${JSON.stringify(created.json)}`);
  const tokenAuth = { authorization: `Bearer ${String(created.json?.token)}` };
  for (let i = 0; i < 5; i++) {
    const t = await post(server.url, '/api/tunnels', { subdomain: `bench${i}` }, auth);
    if (t.status !== 201) throw new Error(`tunnel: ${t.status}`);
  }
  const meBody = JSON.stringify({ query: ACCOUNT_QUERY });

  const [helloRuns, meRuns, restRuns, meTokenRuns] = await alternate([
    httpTarget(yoga.pid, {
      url: yoga.url,
      path: '/graphql',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ hello }' }),
      expectStatus: 200,
    }),
    httpTarget(server.pid, {
      url: server.url,
      path: '/graphql',
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ query: ACCOUNT_QUERY }),
      expectStatus: 200,
    }),
    httpTarget(server.pid, { url: server.url, path: '/api/account', headers: auth, expectStatus: 200 }),
    httpTarget(server.pid, {
      url: server.url,
      path: '/graphql',
      method: 'POST',
      headers: { 'content-type': 'application/json', ...tokenAuth },
      body: meBody,
      expectStatus: 200,
    }),
  ]);
  await yoga.stop();
  // The same REST list with a session and with a token, side by side.
  const [tunnelsSessionRuns, tunnelsTokenRuns] = await alternate([
    httpTarget(server.pid, { url: server.url, path: '/api/tunnels', headers: auth, expectStatus: 200 }),
    httpTarget(server.pid, { url: server.url, path: '/api/tunnels', headers: tokenAuth, expectStatus: 200 }),
  ]);

  // Logins against the bare verifications, the same number of each per round (sized to about one
  // window of the baseline): every login sent is answered inside the measured span. The bare
  // verification the login contains runs with the server's allocator settings (as `npm start`
  // sets them: scripts/allocator.sh); a second baseline with glibc's defaults shows what those
  // settings cost argon2 itself.
  const argon = await startArgon2Baseline(LOGIN_CONNECTIONS, SERVER_ALLOCATOR_ENV);
  const argonDefault = await startArgon2Baseline(LOGIN_CONNECTIONS);
  const amount = Math.max(LOGIN_CONNECTIONS * 4, Math.round((await argon.perSecond(2)) * WINDOW_SECONDS));
  const loginLoad = {
    url: server.url,
    path: '/auth/login',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    bodies: emails.map((address) => JSON.stringify({ email: address, password })),
    connections: LOGIN_CONNECTIONS,
    expectStatus: 200,
  } as const;
  const warm = await measure({ ...loginLoad, amount: LOGIN_WARMUP }, server.pid);
  if (warm.unexpected > 0 || warm.errors > 0) throw new Error(`warm-up logins: ${warm.unexpected} unexpected statuses, ${warm.errors} errors`);
  const [argonDefaultRuns, argonRuns, loginRuns] = await alternate([
    argonDefault.target(amount),
    argon.target(amount),
    httpTarget(server.pid, { ...loginLoad, amount }),
  ]);
  await argon.stop();
  await argonDefault.stop();
  // Resident memory right after the last login, and once the server has been idle long enough for
  // V8's memory reducer to run (it collects and gives back the pages a burst left behind, the
  // young generation's included, after some seconds without allocation).
  const rss = server.rssMiB();
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const rssSettled = server.rssMiB();
  await server.stop();

  const me = compare(helloRuns!, meRuns!);
  const rest = compare(helloRuns!, restRuns!);
  const meToken = compare(helloRuns!, meTokenRuns!);
  const tunnelsToken = compare(tunnelsSessionRuns!, tunnelsTokenRuns!);
  const logins = compare(argonRuns!, loginRuns!);
  for (const [name, c] of [['me', me], ['rest', rest], ['me (token)', meToken], ['tunnels (token)', tunnelsToken], ['logins', logins]] as const) {
    if (c.value.errors || c.value.unexpected) notes.push(`${name}: ${c.value.errors} errors, ${c.value.unexpected} unexpected statuses`);
  }
  const restVsMe = median(restRuns!.map((r, i) => r.rps / meRuns![i]!.rps));
  notes.push(`REST GET /api/account vs GraphQL me (same fields): ${restVsMe.toFixed(2)} of GraphQL req/s (target within 10%: ≥ 0.90)`);
  const pct = (ratio: number) => {
    const v = (1 / ratio - 1) * 100;
    return `${v >= 0 ? '+' : ''}${v.toFixed(1)}%`;
  };
  const loginsVsDefault = compare(argonDefaultRuns!, loginRuns!);
  const arenaCost = compare(argonDefaultRuns!, argonRuns!);
  notes.push(
    `login CPU beyond the argon2id verification it contains: ${pct(logins.cpuRatio)} ` +
      `(server ${cpuText(logins.value.cpuUsPerReq)} per login, bare argon2id with ${SERVER_ALLOCATOR_TEXT} as the server runs it ` +
      `${cpuText(logins.baseline.cpuUsPerReq)} per verification; target ≤ 15%); against bare argon2id with glibc's defaults ` +
      `(${cpuText(loginsVsDefault.baseline.cpuUsPerReq)}): ${pct(loginsVsDefault.cpuRatio)}, of which ${SERVER_ALLOCATOR_TEXT} ` +
      `costs argon2 itself ${pct(arenaCost.cpuRatio)} (page faults on its 19 MiB buffers); ${amount} logins and ${amount} verifications ` +
      `per round, ${LOGIN_CONNECTIONS} at a time, taking turns on ${LOGIN_ACCOUNTS} accounts (none reaches the 100-session cap), after ${LOGIN_WARMUP} ` +
      `uncounted logins (steady state: V8 has compiled the login path); CPU of the server process only (PostgreSQL and Redis run in their own)`,
  );
  notes.push(
    `server resident memory after the accounts benchmarks: ${rssSettled.toFixed(0)} MiB after ${SETTLE_MS / 1000} s idle (target ≤ 250 MiB), ` +
      `${rss.toFixed(0)} MiB right after the last login, on ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL + Redis' : 'embedded PGlite + memory cache'}`,
  );
  notes.push(`accounts: medians of ${ROUNDS} alternating rounds (bare Yoga, me, REST; then argon2id with default arenas, argon2id as the server runs it, logins)`);
  return {
    rows: [
      { name: 'GraphQL `me` (bearer)', baselineName: 'bare Yoga `{ hello }`', compared: me, floor: 0.6 },
      { name: 'REST GET /api/account (bearer)', baselineName: 'bare Yoga `{ hello }`', compared: rest },
      { name: 'GraphQL `me` (service token)', baselineName: 'bare Yoga `{ hello }`', compared: meToken, floor: 0.6 },
      { name: 'REST GET /api/tunnels (service token)', baselineName: 'the same with a session', compared: tunnelsToken, floor: 0.9 },
      {
        name: 'POST /auth/login',
        baselineName: `bare argon2id verification (${SERVER_ALLOCATOR_TEXT}, as the server)`,
        compared: logins,
        floor: 1 / 1.15,
        floorText: '≥ 0.87 (≤ 15% more CPU)',
      },
    ],
    notes,
  };
}
