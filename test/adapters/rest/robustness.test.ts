// Hostile input at every REST write path (the REST table plus its auth rows): malformed JSON,
// wrong types, oversized bodies and hostile strings. Every answer must be a 4xx problem+json
// (never a 5xx, never a dropped connection), and afterwards the server still answers and an
// account created beforehand is intact.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Reply, RequestOptions } from '../../support/http.js';
import { fromIp, login, randomIp, signedIn, signup, useSignedIn, type Account } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { restRoutes } from '../../../src/adapters/rest/table.js';
import type { RestRoute } from '../../../src/adapters/rest/route.js';

const s = useServer({ env: { TRUST_PROXY: 'true' } });
const keeper = useSignedIn(s);
// Hostile traffic comes from its own address, so per-IP limits never touch other tests.
const ip = randomIp();

const writes = restRoutes.filter((r) => r.method !== 'GET');

const HOSTILE_STRINGS = [
  '',
  ' ',
  'a'.repeat(20_000),
  '\u0000',
  'abc\u0000def@example.com',
  `nul\u0000${'x'.repeat(40)}`,
  '😀'.repeat(500),
  '\u202e\u0301\ud800',
  'Ω≈ç√∫˜µ≤≥÷',
  "' OR '1'='1' --",
  "'; DROP TABLE accounts; --",
  'admin@example.com\r\nBcc: victim@example.com',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '../../../../etc/passwd',
  '%00%0d%0a',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '__proto__',
];
const WRONG_TYPES: unknown[] = [0, -1.5, 1e308, true, false, null, [], ['a', 'b'], {}, { $ne: null }, { toString: 'x' }];
const MALFORMED = ['{', '{"email": ', 'not json', '[1,2', '{"a":1,}', "{'a':1}", '\u0000', 'email=a%40b.c&password=12345678'];
const NON_OBJECTS = ['42', '"str"', 'null', '[]', 'true', '[{"email":"a@b.c"}]'];
const HOSTILE_IDS = ["'; DROP TABLE sessions; --", '%00', 'x%00y', '..%2F..%2Fetc', '%F0%9F%98%80', 'a'.repeat(2000), '%E2%80%AE'];

function pathOf(route: RestRoute, id = '00000000-0000-0000-0000-000000000000'): string {
  return route.url.replace(/:[a-zA-Z_]+/g, id);
}

function bodyWith(route: RestRoute, value: unknown): Record<string, unknown> {
  return Object.fromEntries(Object.keys(route.body ?? { x: '' }).map((f) => [f, value]));
}

const seen: string[] = [];
const CLIENT_CODES = ['BAD_REQUEST', 'UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED'];

async function send(route: RestRoute, path: string, opts: RequestOptions, bearer?: string): Promise<Reply> {
  const r = await s.request(path, {
    method: route.method,
    ...opts,
    headers: { ...fromIp(ip), ...opts.headers },
    ...(bearer ? { bearer } : {}),
  });
  seen.push(`${route.method} ${path.slice(0, 60)} → ${r.status}`);
  return r;
}

/** Body-less write paths that are public by contract (API.md section 8: passkey sign-in options). */
const PUBLIC_BODYLESS = new Set(['/auth/passkey/options']);

/** A 4xx problem+json; a body-less route may succeed when signed in, or when public (its body is ignored). */
function assertRefused(r: Reply, route: RestRoute, what: string, signedInCall: boolean): void {
  assert.ok(r.status < 500, `${route.method} ${route.url} with ${what}: ${r.status} ${r.text.slice(0, 300)}`);
  if (r.status < 300 && !route.body && (signedInCall || PUBLIC_BODYLESS.has(route.url))) return;
  // forgot-password answers 204 to any JSON body (400 only for a body that is not JSON), so that
  // it tells no one which addresses exist.
  if (r.status === 204 && route.url === '/auth/forgot-password' && !MALFORMED.some((m) => what === `body ${JSON.stringify(m)}`)) return;
  assert.ok(r.status >= 400, `${route.method} ${route.url} with ${what} succeeded: ${r.status} ${r.text.slice(0, 200)}`);
  assert.match(String(r.headers['content-type']), /^application\/problem\+json/, `${route.method} ${route.url} with ${what}`);
  assert.equal(r.json?.status, r.status);
  assert.equal(typeof r.json?.code, 'string');
}

/** A throwaway signed-in caller; hostile calls may log it out, so it is renewed per route. */
async function victim(): Promise<string> {
  return (await signedIn(s, { headers: fromIp(randomIp()) })).token;
}

test('every REST write path answers malformed JSON and non-object bodies with 400 problem+json', async () => {
  for (const route of writes) {
    const token = await victim();
    for (const raw of [...MALFORMED, ...NON_OBJECTS]) {
      for (const bearer of [undefined, token]) {
        const r = await send(route, pathOf(route), { body: raw, headers: { 'content-type': 'application/json' } }, bearer);
        assertRefused(r, route, `body ${JSON.stringify(raw)}`, Boolean(bearer));
      }
    }
  }
});

test('every REST write path answers wrong types (numbers, booleans, null, arrays, objects) with 4xx problem+json', async () => {
  for (const route of writes) {
    const token = await victim();
    for (const value of WRONG_TYPES) {
      for (const bearer of [undefined, token]) {
        const r = await send(route, pathOf(route), { body: bodyWith(route, value) }, bearer);
        assertRefused(r, route, `fields = ${JSON.stringify(value)}`, Boolean(bearer));
      }
    }
  }
});

test('every REST write path answers hostile strings with 4xx problem+json', async () => {
  for (const route of writes) {
    const token = await victim();
    for (const value of HOSTILE_STRINGS) {
      for (const bearer of [undefined, token]) {
        const r = await send(route, pathOf(route), { body: bodyWith(route, value) }, bearer);
        assertRefused(r, route, `fields = ${JSON.stringify(value.slice(0, 40))}`, Boolean(bearer));
      }
    }
  }
});

test('path parameters with hostile values answer 4xx problem+json', async () => {
  for (const route of writes.filter((r) => r.url.includes(':'))) {
    const token = await victim();
    for (const id of HOSTILE_IDS) {
      for (const bearer of [undefined, token]) {
        const r = await send(route, pathOf(route, id), { body: bodyWith(route, 'x') }, bearer);
        assertRefused(r, route, `id ${id.slice(0, 40)}`, false);
      }
    }
  }
});

test('a body over 64 KiB answers 413 problem+json with code BAD_REQUEST on every write path and /graphql', async () => {
  const big = JSON.stringify({ email: 'a@example.com', password: 'p'.repeat(70 * 1024), token: 'x', slug: 'y' });
  for (const route of writes) {
    assertProblem(await send(route, pathOf(route), { body: big }), 413, 'BAD_REQUEST');
    assertProblem(await send(route, pathOf(route), { body: big }, keeper.token), 413, 'BAD_REQUEST');
  }
  const g = await s.request('/graphql', { method: 'POST', body: JSON.stringify({ query: `{ me { email } }${' '.repeat(70 * 1024)}` }) });
  assertProblem(g, 413, 'BAD_REQUEST');
  // Just under the limit is parsed (and refused on its merits).
  const under = JSON.stringify({ email: 'a@example.com', password: 'p'.repeat(60 * 1024) });
  assertProblem(await s.request('/auth/signup', { method: 'POST', body: under }), 400, 'BAD_REQUEST');
});

test('hostile GraphQL variables answer with catalog codes, never an internal error', async () => {
  const queries = [
    'mutation ($a: String!, $b: String!) { login(email: $a, password: $b) { token } }',
    'mutation ($a: String!, $b: String!) { signup(email: $a, password: $b) { id } }',
    'mutation ($a: String!) { forgotPassword(email: $a) }',
    'mutation ($a: String!) { verifyEmail(token: $a) { emailVerified } }',
  ];
  for (const query of queries) {
    for (const value of [...HOSTILE_STRINGS, ...WRONG_TYPES]) {
      const r = await s.request('/graphql', { method: 'POST', body: { query, variables: { a: value, b: value } }, headers: fromIp(ip) });
      assert.ok(r.status < 500, `${query} ${JSON.stringify(value)?.slice(0, 40)}: ${r.status}`);
      const code = r.json?.errors?.[0]?.extensions?.code;
      if (code !== undefined) assert.ok(CLIENT_CODES.includes(code), `${query} ${JSON.stringify(value)?.slice(0, 40)}: ${r.text.slice(0, 200)}`);
    }
  }
});

test('after the barrage the server answers and the account created beforehand is intact', async () => {
  assert.ok(seen.length > 500, `only ${seen.length} hostile requests were sent`);
  const health = await s.request('/healthz');
  assert.equal(health.status, 200);
  const me = await s.request('/api/account', { bearer: keeper.token });
  assert.equal(me.status, 200);
  assert.equal(me.json.email, keeper.email);
  assert.equal(me.json.slug, keeper.slug);
  await login(s, keeper);
  const accountCount = await s.deps.db.account.count({ where: { email: keeper.email } });
  assert.equal(accountCount, 1);
  // The server still takes new accounts.
  const fresh: Account = await signup(s);
  await login(s, fresh);
});
