// The service-wide bounds on guessing device user codes (API.md section 12; docs/security.md):
// wrong codes are limited per network (device-grant.test.ts) and, so that many networks cannot add
// up to a guess, across all of them (10 a minute), while the codes live at once are bounded by a
// service-wide limit on device requests (20 a minute). Together: below one chance in a million
// that any wrong code tried during a code's life is a live one. Counted before anything is looked
// at, never failing open; past either bound everyone gets 429 with Retry-After.
import assert from 'node:assert/strict';
import { createHash, randomInt } from 'node:crypto';
import { test } from 'node:test';
import { guessingBound, lookupDeviceRequest } from '../../../src/domain/device-grant/device-grant.js';
import { DEVICE_REQUESTS_EVERYWHERE, DEVICE_WRONG_CODES_EVERYWHERE, EVERYWHERE } from '../../../src/domain/device-grant/limits.js';
import { AppError } from '../../../src/domain/errors.js';
import { resetLimit } from '../../../src/domain/limits/rate-limit.js';
import type { Cache } from '../../../src/infra/cache/cache.js';
import { fromIp, randomIp, signedIn, type SignedIn } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import type { Reply } from '../../support/http.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';

const s = useServer(() => ({ env: { TRUST_PROXY: 'true' } }));
const WRONG = 'BCDF-GHJK';

/** `count` client addresses on as many different /24 networks. */
function networks(count: number): string[] {
  const a = randomInt(1, 255);
  return Array.from({ length: count }, (_, i) => `10.${a}.${i}.${randomInt(1, 255)}`);
}

function form(path: string, params: Record<string, string>, ip: string): Promise<Reply> {
  return s.request(path, {
    method: 'POST',
    body: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'tunnel-cli/1.4.0', ...fromIp(ip) },
  });
}

async function startDevice(ip = randomIp()): Promise<{ device_code: string; user_code: string }> {
  const r = await form('/oauth/device_authorization', { client_id: 'tunnel-cli' }, ip);
  assert.equal(r.status, 200, r.text);
  return r.json;
}

const api = (p: SignedIn, path: 'lookup' | 'approve' | 'deny', userCode: string, ip: string) =>
  s.request(`/api/device/${path}`, { method: 'POST', bearer: p.token, body: { user_code: userCode }, headers: fromIp(ip) });

const person = () => signedIn(s, { headers: fromIp(randomIp()), verified: true });

test('the bound as configured: at most 220 live codes and 110 wrong codes in a code\'s 10 minutes, a chance below 10^-6', () => {
  const b = guessingBound();
  assert.equal(b.codeSpace, 20 ** 8);
  assert.equal(b.liveCodes, 11 * DEVICE_REQUESTS_EVERYWHERE.max);
  assert.equal(b.wrongCodes, 11 * DEVICE_WRONG_CODES_EVERYWHERE.max);
  assert.deepEqual([b.liveCodes, b.wrongCodes], [220, 110]);
  assert.ok(b.chance < 1e-6, `${b.chance}`);
});

test('wrong codes from many networks, each far under its own limit: past 10 a minute in all, 429 with Retry-After for everyone, right codes included', async () => {
  await resetLimit(s.deps.cache, DEVICE_WRONG_CODES_EVERYWHERE, EVERYWHERE);
  const p = await person();
  const d = await startDevice();
  const [first, ...others] = networks(16);
  // Right codes are taken back: any number of them.
  for (let i = 0; i < 12; i++) assert.equal((await api(p, 'lookup', d.user_code, others[0]!)).status, 200);
  // Ten networks, one wrong code each (or not even a code): 404, each network at 1 of its 10.
  for (let i = 0; i < 10; i++) assertProblem(await api(p, 'lookup', i % 2 ? WRONG : 'not a code', others[i]!), 404, 'NOT_FOUND');
  const limited = await api(p, 'lookup', d.user_code, first!);
  assertProblem(limited, 429, 'RATE_LIMITED');
  assert.match(limited.json.detail, /Too many wrong codes have been tried on this service/);
  assert.ok(Number(limited.headers['retry-after']) <= 60, limited.headers['retry-after']);
  assertProblem(await api(p, 'approve', d.user_code, others[10]!), 429, 'RATE_LIMITED');
  assertProblem(await api(p, 'deny', d.user_code, others[11]!), 429, 'RATE_LIMITED');
  const viaGraphql = await gql(s, 'mutation ($c: String!) { approveDevice(userCode: $c) }', { c: d.user_code }, { bearer: p.token, headers: fromIp(others[12]!) });
  assert.equal(gqlCode(viaGraphql), 'RATE_LIMITED', viaGraphql.text);
  // Nothing was looked at: the request is still pending.
  const row = await s.deps.db.deviceAuthorization.findUniqueOrThrow({ where: { deviceCodeHash: createHash('sha256').update(d.device_code).digest('hex') } });
  assert.equal(row.status, 'pending');

  // Once the minute is over, the right code works at once.
  await resetLimit(s.deps.cache, DEVICE_WRONG_CODES_EVERYWHERE, EVERYWHERE);
  // The refused attempt did not spend its network's budget: ten more wrong codes from it are 404.
  for (let i = 0; i < 10; i++) assertProblem(await api(p, 'lookup', WRONG, first!), 404, 'NOT_FOUND', `wrong code ${i + 1} from the refused network`);
  await resetLimit(s.deps.cache, DEVICE_WRONG_CODES_EVERYWHERE, EVERYWHERE);
  assert.equal((await api(p, 'approve', d.user_code, others[13]!)).status, 204);
});

test('counted before the code is looked at: of 16 wrong codes at once from 16 networks, 10 are looked at and 6 refused', async () => {
  await resetLimit(s.deps.cache, DEVICE_WRONG_CODES_EVERYWHERE, EVERYWHERE);
  const p = await person();
  const answers = await Promise.all(networks(16).map((ip) => api(p, 'lookup', WRONG, ip)));
  assert.deepEqual(
    answers.map((r) => r.status).sort(),
    [...Array(10).fill(404), ...Array(6).fill(429)],
  );
  await resetLimit(s.deps.cache, DEVICE_WRONG_CODES_EVERYWHERE, EVERYWHERE);
});

test('never fails open: with the cache unreachable, each instance counts the same bound in process', async () => {
  const down = new Proxy(s.deps.cache, {
    get: (target, key) => (key === 'kind' ? target.kind : () => Promise.reject(new Error('cache unreachable'))),
  }) as Cache;
  const deps = { ...s.deps, cache: down };
  const viewer = { accountId: '00000000-0000-4000-8000-000000000000', sessionId: 'x', tokenHash: 'x' } as Parameters<typeof lookupDeviceRequest>[1];
  const codeOf = (err: unknown) => (err instanceof AppError ? err.code : String(err));
  const outcomes: string[] = [];
  for (const ip of networks(12)) {
    outcomes.push(await lookupDeviceRequest(deps, viewer, WRONG, { ip, userAgent: 'test' }).then(() => 'FOUND', codeOf));
  }
  assert.deepEqual(outcomes, [...Array(10).fill('NOT_FOUND'), 'RATE_LIMITED', 'RATE_LIMITED']);
});

test('device requests: past 20 a minute in all, from networks each under its own limit, temporarily_unavailable (429, Retry-After)', async () => {
  await resetLimit(s.deps.cache, DEVICE_REQUESTS_EVERYWHERE, EVERYWHERE);
  const [last, ...ips] = networks(21);
  for (const ip of ips) await startDevice(ip);
  const refused = await form('/oauth/device_authorization', { client_id: 'tunnel-cli' }, last!);
  assert.equal(refused.status, 429, refused.text);
  assert.equal(refused.json.error, 'temporarily_unavailable');
  assert.match(refused.json.error_description, /on this service/);
  const retry = Number(refused.headers['retry-after']);
  assert.ok(retry >= 1 && retry <= 60, refused.headers['retry-after']);
  await resetLimit(s.deps.cache, DEVICE_REQUESTS_EVERYWHERE, EVERYWHERE);
  await startDevice(last);
});
