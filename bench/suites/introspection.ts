// Introspection at the speed of a session check (API.md section 13): the edge calls
// POST /oauth/introspect for every MCP request, so a warm call (the active answer cached under the
// token's hash: one versioned read, no signature check, no database statement) is measured
// against a cached GET /api/account with a session bearer, on the same server, in alternating
// rounds. Target: a warm introspection costs at most 1.5 times the CPU of the session check.
// On PostgreSQL + Redis the suite also shows the path is warm: the answer's cache entry exists,
// and a batch of introspections runs next to almost no database transactions.
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { hashToken } from '../../src/infra/crypto/tokens.js';
import { alternate, api, compare, cpuText, httpTarget, measure, startServer, verifyFromOutbox, ROUNDS, type BenchResult, type Load } from '../lib.js';

const ZONE = 'introspection.bench.localhost';
const PASSWORD = 'bench password 123';
const REDIRECT = 'http://127.0.0.1:8765/callback';
/** The edge's secret for POST /oauth/introspect (production wants 32 random characters or more). */
const INTERNAL_API_TOKEN = randomBytes(32).toString('hex');
/** Introspections in the database check (PostgreSQL only), outside the measured rounds. */
const CHECK_AMOUNT = 20_000;
/**
 * PostgreSQL 15 flushes a backend's statistics at most once a second, and an idle backend's
 * within 10 s: waited out before and after the check's batch so its counters are complete.
 */
const STATS_FLUSH_MS = 11_000;

interface Granted {
  session: string;
  accessToken: string;
  resource: string;
}

/**
 * An owner of an `oauth` tunnel (signed up, verified, logged in) and an access token for its /mcp
 * URL, as an MCP client gets one: registration, authorization with PKCE, consent, code exchange.
 */
async function grantedToken(base: string, dataDir: string): Promise<Granted> {
  const email = `bench-${Date.now().toString(36)}@example.com`;
  await api(base, 'POST', '/auth/signup', { email, password: PASSWORD });
  await verifyFromOutbox(base, dataDir);
  const { token: session } = (await api(base, 'POST', '/auth/login', { email, password: PASSWORD })) as { token: string };
  const tunnel = (await api(base, 'POST', '/api/tunnels', { subdomain: 'bench', access: 'oauth' }, session)) as { host: string };
  const resource = `https://${tunnel.host}/mcp`;
  const { client_id: clientId } = (await api(base, 'POST', '/oauth/register', {
    client_name: 'Bench Assistant',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
  })) as { client_id: string };

  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'bench',
    scope: 'mcp',
    resource,
  });
  const authorized = await fetch(`${base}/oauth/authorize?${query}`, { redirect: 'manual' });
  const location = authorized.headers.get('location');
  if (authorized.status !== 302 || location === null) throw new Error(`authorize answered ${authorized.status}: ${await authorized.text()}`);
  const requestId = new URL(location).searchParams.get('request');
  if (requestId === null) throw new Error(`authorize redirected to ${location}, not to the consent page`);

  const { redirect_to: redirectTo } = (await api(base, 'POST', `/api/oauth/requests/${requestId}/approve`, undefined, session)) as { redirect_to: string };
  const code = new URL(redirectTo).searchParams.get('code');
  if (code === null) throw new Error(`approve redirected to ${redirectTo}, without a code`);
  const exchanged = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId, resource }).toString(),
  });
  const tokens = (await exchanged.json()) as { access_token?: string };
  if (exchanged.status !== 200 || typeof tokens.access_token !== 'string') throw new Error(`token exchange answered ${exchanged.status}: ${JSON.stringify(tokens)}`);
  return { session, accessToken: tokens.access_token, resource };
}

/** One introspection as the edge sends it; throws unless the answer is active for `resource`. */
async function introspectActive(base: string, granted: Granted): Promise<void> {
  const res = await fetch(`${base}/oauth/introspect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${INTERNAL_API_TOKEN}` },
    body: new URLSearchParams({ token: granted.accessToken }).toString(),
  });
  const answer = (await res.json()) as { active?: boolean; aud?: string };
  if (res.status !== 200 || answer.active !== true || answer.aud !== granted.resource) {
    throw new Error(`introspection answered ${res.status}: ${JSON.stringify(answer)}`);
  }
}

/** Whether the token's active answer is in Redis (domain/oauth/introspection-cache.ts's key). */
async function cachedInRedis(redisUrl: string, accessToken: string): Promise<boolean> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const [, keys] = await redis.scan('0', 'MATCH', `oauth-introspection:{v}:${hashToken(accessToken)}:*`, 'COUNT', 10_000);
    return keys.length > 0;
  } finally {
    redis.disconnect();
  }
}

/**
 * Transactions the run's database committed or rolled back (pg_stat_database) while `work` ran:
 * every statement of the server (and of its background jobs) counts.
 */
async function databaseTransactions(databaseUrl: string, work: () => Promise<void>): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const read = async () => {
    await new Promise((r) => setTimeout(r, STATS_FLUSH_MS));
    const { rows } = await client.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()');
    return Number(rows[0]!.n);
  };
  try {
    const before = await read();
    await work();
    // Less this client's own read.
    return (await read()) - before - 1;
  } finally {
    await client.end();
  }
}

export default async function introspection(): Promise<BenchResult> {
  const notes: string[] = [];
  const server = await startServer({ ZONE, INTERNAL_API_TOKEN });
  const granted = await grantedToken(server.url, server.dataDir);
  // The first call answers from the token and the database and caches the answer; the second is warm.
  await introspectActive(server.url, granted);
  await introspectActive(server.url, granted);

  const introspect: Load = {
    url: server.url,
    path: '/oauth/introspect',
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${INTERNAL_API_TOKEN}` },
    body: new URLSearchParams({ token: granted.accessToken }).toString(),
    expectStatus: 200,
  };
  const [accountRuns, introspectRuns] = await alternate([
    httpTarget(server.pid, { url: server.url, path: '/api/account', headers: { authorization: `Bearer ${granted.session}` }, expectStatus: 200 }),
    httpTarget(server.pid, introspect),
  ]);
  // Still active after the load (a 200 alone would not tell an inactive answer).
  await introspectActive(server.url, granted);

  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL;
  if (redisUrl) {
    notes.push(`introspection: the token's active answer ${(await cachedInRedis(redisUrl, granted.accessToken)) ? 'is' : '**is not**'} in Redis after the load`);
  }
  if (databaseUrl) {
    let batch = { errors: 0, unexpected: 0 };
    const transactions = await databaseTransactions(databaseUrl, async () => {
      batch = await measure({ ...introspect, amount: CHECK_AMOUNT }, server.pid);
    });
    if (batch.errors || batch.unexpected) notes.push(`introspection database check: ${batch.errors} errors, ${batch.unexpected} unexpected statuses`);
    notes.push(
      `introspection: ${transactions} database transactions during ${CHECK_AMOUNT} warm introspections and their 1 s warm-up, background jobs ` +
        `and the revocation epoch's once-a-second read included (${(transactions / CHECK_AMOUNT).toFixed(4)} per introspection; an introspection ` +
        `answered from the database reads the grant, the tunnel and the account)`,
    );
  }
  await server.stop();

  const compared = compare(accountRuns!, introspectRuns!);
  for (const [name, s] of [['GET /api/account', compared.baseline], ['introspect', compared.value]] as const) {
    if (s.errors || s.unexpected) notes.push(`introspection suite, ${name}: ${s.errors} errors, ${s.unexpected} unexpected statuses`);
  }
  notes.push(
    `warm POST /oauth/introspect: ${cpuText(compared.value.cpuUsPerReq)} CPU per request, ${(1 / compared.cpuRatio).toFixed(2)}× a cached ` +
      `GET /api/account (${cpuText(compared.baseline.cpuUsPerReq)}) on the same server (target ≤ 1.5×); medians of ${ROUNDS} alternating rounds`,
  );
  return {
    rows: [
      {
        name: 'POST /oauth/introspect (warm, cached answer)',
        baselineName: 'cached GET /api/account (session bearer), same server',
        compared,
        floor: 1 / 1.5,
        floorText: '≥ 0.67 (≤ 1.5× a cached GET /api/account)',
      },
    ],
    notes,
  };
}
