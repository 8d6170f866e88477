// Service tokens (API.md section 12 and the guards of 7a): create (secret once), list, revoke;
// the tsk_ format with its CRC32 tail; scopes enforced in one place for REST and GraphQL; a
// revoked, expired or orphaned token fails on its next request; stored only hashed.
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { PASSWORD, fromIp, randomIp, signedIn, type SignedIn } from '../../support/accounts.js';
import { useFakeProviders } from '../../support/fake-providers.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { needs } from '../../support/backends.js';
import { startTestServer, useServer } from '../../support/server.js';
import { TcpProxy } from '../../support/tcp-proxy.js';
import { createTunnel } from '../../support/tunnels.js';

const fake = useFakeProviders();
const s = useServer(() => ({ env: { ...fake.env(), TRUST_PROXY: 'true' } }));
const WINDOW_MS = 600_000;
const DAY_MS = 24 * 3600_000;

async function account(opts: { verified?: boolean } = {}): Promise<SignedIn & { headers: Record<string, string> }> {
  const headers = fromIp(randomIp());
  return { ...(await signedIn(s, { headers, verified: opts.verified ?? true })), headers };
}

const create = (a: { token: string; headers?: Record<string, string> }, body: unknown) =>
  s.request('/api/tokens', { method: 'POST', bearer: a.token, body, headers: a.headers ?? {} });

async function newToken(a: { token: string }, scopes: string[], extra: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const r = await create(a, { name: 'ci', scopes, ...extra });
  assert.equal(r.status, 201, r.text);
  return { id: r.json.id, token: r.json.token };
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function base62(n: number): string {
  let out = '';
  do {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  } while (n > 0);
  return out.padStart(6, '0');
}

test('create: 201 with the secret once, in the tsk_ format whose tail is the CRC32 of its body in base62', async () => {
  const a = await account();
  const r = await create(a, { name: '  deploy bot  ', scopes: ['tunnels:write', 'tunnels:read'], expires_in_days: 30 });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual(Object.keys(r.json).sort(), ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'scopes', 'token']);
  assert.equal(r.json.name, 'deploy bot');
  assert.deepEqual(r.json.scopes, ['tunnels:read', 'tunnels:write']);
  assert.equal(r.json.last_used_at, null);
  const expires = Date.parse(r.json.expires_at) - Date.parse(r.json.created_at);
  assert.equal(expires, 30 * DAY_MS);
  const token = String(r.json.token);
  assert.match(token, /^tsk_[0-9A-Za-z]{38}$/);
  const body = token.slice(4, 36);
  assert.equal(token.slice(36), base62(crc32(body)), 'the tail is CRC32(body) in base62, 6 characters');
  // Listed without the secret; only its SHA-256 is stored.
  const list = await s.request('/api/tokens', { bearer: a.token });
  assert.equal(list.status, 200);
  assert.equal(list.json.tokens[0].id, r.json.id);
  assert.equal('token' in list.json.tokens[0], false);
  const rows = await s.deps.db.serviceToken.findMany({ where: { accountId: a.id } });
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.tokenHash, createHash('sha256').update(token).digest('hex'));
  assert.ok(!JSON.stringify(rows).includes(token.slice(4)), 'the secret is nowhere in the row');
});

test('create: 400 for each broken rule', async () => {
  const a = await account();
  for (const body of [
    { name: '', scopes: ['account:read'] },
    { name: 'x'.repeat(101), scopes: ['account:read'] },
    { name: 'ok', scopes: [] },
    { name: 'ok', scopes: ['admin'] },
    { name: 'ok', scopes: 'account:read' },
    { name: 'ok', scopes: ['account:read'], expires_in_days: 0 },
    { name: 'ok', scopes: ['account:read'], expires_in_days: 367 },
    { name: 'ok', scopes: ['account:read'], expires_in_days: 1.5 },
    { scopes: ['account:read'] },
  ]) {
    assertProblem(await create(a, body), 400, 'BAD_REQUEST');
  }
  assert.equal((await create(a, { name: 'x'.repeat(100), scopes: ['account:read'], expires_in_days: null })).status, 201);
});

test('create needs a verified address and a recent sign-in (7a); signed out is 401', async () => {
  const unverified = await account({ verified: false });
  assertProblem(await create(unverified, { name: 'x', scopes: ['account:read'] }), 403, 'FORBIDDEN');
  const a = await account();
  s.clock.advance(WINDOW_MS + 1000);
  assertProblem(await create(a, { name: 'x', scopes: ['account:read'] }), 403, 'REAUTH_REQUIRED');
  const again = await s.request('/api/account/reauth', { method: 'POST', bearer: a.token, body: { password: PASSWORD }, headers: a.headers });
  assert.equal(again.status, 204, again.text);
  assert.equal((await create(a, { name: 'x', scopes: ['account:read'] })).status, 201);
  assertProblem(await s.request('/api/tokens', { method: 'POST', body: { name: 'x', scopes: ['account:read'] } }), 401, 'UNAUTHENTICATED');
});

test('at most 50 live tokens: the 51st is 409; expired ones do not count', async () => {
  const a = await account();
  const first = await newToken(a, ['account:read'], { expires_in_days: 1 });
  for (let i = 1; i < 50; i++) await newToken(a, ['account:read']);
  assertProblem(await create(a, { name: 'one too many', scopes: ['account:read'] }), 409, 'CONFLICT');
  s.clock.advance(DAY_MS + 1000);
  await s.request('/api/account/reauth', { method: 'POST', bearer: a.token, body: { password: PASSWORD }, headers: a.headers });
  assert.equal((await create(a, { name: 'room again', scopes: ['account:read'] })).status, 201);
  const list = await s.request('/api/tokens', { bearer: a.token });
  assert.equal(list.json.tokens.length, 51, 'the expired one is still listed');
  assert.ok(list.json.tokens.some((t: { id: string; expires_at: string }) => t.id === first.id && Date.parse(t.expires_at) < s.clock.now().getTime()));
});

test('scopes: each reaches only what it names, on REST and GraphQL alike; everything else is 403', async () => {
  const a = await account();
  const tunnel = await createTunnel(s, a);
  const read = await newToken(a, ['tunnels:read']);
  const write = await newToken(a, ['tunnels:write']);
  const profile = await newToken(a, ['account:read']);
  const as = (t: { token: string }) => ({ bearer: t.token });

  // account:read → GET /api/account and me's profile fields.
  const me = await s.request('/api/account', as(profile));
  assert.equal(me.status, 200, me.text);
  assert.equal(me.json.email, a.email);
  assert.equal(me.json.reauthenticated_until, null);
  assertProblem(await s.request('/api/account', as(read)), 403, 'FORBIDDEN');
  assertProblem(await s.request('/api/tunnels', as(profile)), 403, 'FORBIDDEN');

  // tunnels:read → GET tunnels, not writes.
  const list = await s.request('/api/tunnels', as(read));
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.json.tunnels.map((t: { id: string }) => t.id), [tunnel.id]);
  assert.equal((await s.request(`/api/tunnels/${tunnel.id}`, as(read))).status, 200);
  assertProblem(await s.request('/api/tunnels', { method: 'POST', ...as(read), body: { subdomain: 'nope' } }), 403, 'FORBIDDEN');

  // tunnels:write → create, change, delete.
  const made = await s.request('/api/tunnels', { method: 'POST', ...as(write), body: { subdomain: `w${Date.now().toString(36)}` } });
  assert.equal(made.status, 201, made.text);
  assert.equal((await s.request(`/api/tunnels/${made.json.id}`, { method: 'PATCH', ...as(write), body: { discoverable: true } })).status, 200);
  assert.equal((await s.request(`/api/tunnels/${made.json.id}`, { method: 'DELETE', ...as(write) })).status, 204);

  // Never sessions, tokens, security or account changes, whatever the scopes.
  const all = await newToken(a, ['tunnels:read', 'tunnels:write', 'account:read']);
  for (const [method, path, body] of [
    ['GET', '/api/sessions', undefined],
    ['GET', '/api/tokens', undefined],
    ['POST', '/api/tokens', { name: 'x', scopes: ['account:read'] }],
    ['DELETE', `/api/tokens/${read.id}`, undefined],
    ['GET', '/api/account/activity', undefined],
    ['POST', '/auth/change-password', { current_password: PASSWORD, new_password: 'another long passphrase 9' }],
    ['POST', '/auth/logout', undefined],
    ['POST', '/auth/logout-all', undefined],
    ['DELETE', '/api/account', { email: a.email, password: PASSWORD }],
  ] as const) {
    const r = await s.request(path, { method, ...as(all), ...(body ? { body } : {}) });
    assert.equal(r.status, 403, `${method} ${path}: ${r.status} ${r.text}`);
  }
  for (const intent of ['link', 'reauth']) {
    assertProblem(await s.request(`/auth/oauth/github/start?intent=${intent}`, as(all)), 403, 'FORBIDDEN');
  }
  // GraphQL: a field outside the scopes refuses the whole operation.
  const gqlOk = await gql(s, '{ me { email slug tunnels { id } } }', {}, as(all));
  assert.equal(gqlOk.json.errors, undefined, gqlOk.text);
  const gqlNo = await gql(s, '{ me { email sessions { id } } }', {}, as(all));
  assert.equal(gqlCode(gqlNo), 'FORBIDDEN');
  assert.equal(gqlNo.json.data ?? null, null);
  const viaFragment = await gql(s, 'query { me { ...F } } fragment F on Account { serviceTokens { id } }', {}, as(all));
  assert.equal(gqlCode(viaFragment), 'FORBIDDEN');
  // The account itself is untouched by all of that.
  assert.equal((await s.request('/api/account', { bearer: a.token })).status, 200);
  // A token never works as a cookie.
  assert.equal((await s.request('/api/account', { cookie: `session=${profile.token}` })).status, 401);
});

test('revoke: 204, the token fails on its next request, activity and the notice record it', async () => {
  const a = await account();
  const t = await newToken(a, ['account:read']);
  assert.equal((await s.request('/api/account', { bearer: t.token })).status, 200, 'cached now');
  const mail = await s.smtp.waitFor(a.email, 'token-created');
  assert.match(mail.raw, /"ci"/);
  assert.doesNotMatch(mail.raw, /tsk_/, 'the notice never carries the secret');
  assert.equal((await s.request(`/api/tokens/${t.id}`, { method: 'DELETE', bearer: a.token })).status, 204);
  assertProblem(await s.request('/api/account', { bearer: t.token }), 401, 'UNAUTHENTICATED');
  assertProblem(await s.request(`/api/tokens/${t.id}`, { method: 'DELETE', bearer: a.token }), 404, 'NOT_FOUND');
  const activity = await s.request('/api/account/activity', { bearer: a.token });
  const types = activity.json.events.map((e: { type: string }) => e.type);
  assert.ok(types.includes('token_created') && types.includes('token_revoked'), types.join(','));
  // Another account's token is a 404 like an unknown one.
  const b = await account();
  const theirs = await newToken(b, ['account:read']);
  assertProblem(await s.request(`/api/tokens/${theirs.id}`, { method: 'DELETE', bearer: a.token }), 404, 'NOT_FOUND');
  assertProblem(await s.request('/api/tokens/not-a-uuid', { method: 'DELETE', bearer: a.token }), 404, 'NOT_FOUND');
  assert.equal((await s.request('/api/account', { bearer: theirs.token })).status, 200);
});

test('expiry holds on the next request though the token is cached; a mistyped token is refused without a lookup', async () => {
  const a = await account();
  const t = await newToken(a, ['account:read'], { expires_in_days: 1 });
  const good = await newToken(a, ['account:read']);
  assert.equal((await s.request('/api/account', { bearer: t.token })).status, 200);
  s.clock.advance(DAY_MS + 1);
  assertProblem(await s.request('/api/account', { bearer: t.token }), 401, 'UNAUTHENTICATED');
  assert.equal((await s.request('/api/account', { bearer: good.token })).status, 200);
  const flipped = good.token.slice(0, 10) + (good.token[10] === 'a' ? 'b' : 'a') + good.token.slice(11);
  assertProblem(await s.request('/api/account', { bearer: flipped }), 401, 'UNAUTHENTICATED');
});

test('last_used_at and the masked address are written on use, at most once a minute', async () => {
  const a = await account();
  const t = await newToken(a, ['account:read']);
  await s.request('/api/account', { bearer: t.token, headers: { 'x-forwarded-for': '203.0.113.77' } });
  const first = (await s.request('/api/tokens', { bearer: a.token })).json.tokens[0];
  assert.equal(first.last_used_ip, '203.0.113.x');
  assert.ok(first.last_used_at);
  await s.request('/api/account', { bearer: t.token, headers: { 'x-forwarded-for': '198.51.100.5' } });
  assert.equal((await s.request('/api/tokens', { bearer: a.token })).json.tokens[0].last_used_ip, '203.0.113.x', 'within the minute: unchanged');
  s.clock.advance(61_000);
  await s.request('/api/account', { bearer: t.token, headers: { 'x-forwarded-for': '198.51.100.5' } });
  assert.equal((await s.request('/api/tokens', { bearer: a.token })).json.tokens[0].last_used_ip, '198.51.100.x');
});

test('deleting the account stops its tokens at once; tokens are never listed among sessions', async () => {
  const a = await account();
  const t = await newToken(a, ['account:read']);
  assert.equal((await s.request('/api/account', { bearer: t.token })).status, 200);
  const sessions = await s.request('/api/sessions', { bearer: a.token });
  assert.equal(sessions.json.sessions.length, 1);
  const del = await s.request('/api/account', { method: 'DELETE', bearer: a.token, body: { email: a.email, password: PASSWORD } });
  assert.equal(del.status, 204, del.text);
  assertProblem(await s.request('/api/account', { bearer: t.token }), 401, 'UNAUTHENTICATED');
});

test('GraphQL: me.serviceTokens, createServiceToken and revokeServiceToken', async () => {
  const a = await account();
  const created = await gql(s, 'mutation { createServiceToken(name: "gql", scopes: ["tunnels:read"], expiresInDays: 7) { token serviceToken { id name scopes expiresAt lastUsedAt } } }', {}, { bearer: a.token });
  assert.equal(created.json.errors, undefined, created.text);
  const { token, serviceToken } = created.json.data.createServiceToken;
  assert.match(token, /^tsk_/);
  assert.deepEqual(serviceToken.scopes, ['tunnels:read']);
  const listed = await gql(s, '{ me { serviceTokens { id name } } }', {}, { bearer: a.token });
  assert.deepEqual(listed.json.data.me.serviceTokens, [{ id: serviceToken.id, name: 'gql' }]);
  const revoked = await gql(s, 'mutation ($id: ID!) { revokeServiceToken(id: $id) }', { id: serviceToken.id }, { bearer: a.token });
  assert.equal(revoked.json.data.revokeServiceToken, true);
  const after = await gql(s, '{ me { tunnels { id } } }', {}, { bearer: token });
  assert.equal(after.json.data.me, null, 'a revoked token is signed out');
});

const shared = needs(['DATABASE_URL', 'REDIS_URL'], 'two instances sharing PostgreSQL and Redis');

test('a revocation on one instance holds on the other at its next request', shared, async () => {
  const b = await startTestServer({ smtp: s.smtp, env: { TRUST_PROXY: 'true' } });
  try {
    const a = await account();
    const t = await newToken(a, ['account:read']);
    assert.equal((await b.request('/api/account', { bearer: t.token })).status, 200, 'cached on B');
    assert.equal((await s.request(`/api/tokens/${t.id}`, { method: 'DELETE', bearer: a.token })).status, 204);
    assertProblem(await b.request('/api/account', { bearer: t.token }), 401, 'UNAUTHENTICATED');
  } finally {
    await b.close();
  }
});

test('a revocation made while Redis is unreachable is not undone when Redis returns', shared, async () => {
  const redis = new URL(process.env.REDIS_URL!);
  const proxy = await TcpProxy.start(redis.hostname, Number(redis.port || 6379));
  const b = await startTestServer({ smtp: s.smtp, env: { TRUST_PROXY: 'true', REDIS_URL: TcpProxy.rewrite(process.env.REDIS_URL!, proxy.port) } });
  try {
    const a = await account();
    const t = await newToken(a, ['account:read']);
    assert.equal((await s.request('/api/account', { bearer: t.token })).status, 200);
    assert.equal((await b.request('/api/account', { bearer: t.token })).status, 200);
    proxy.block();
    const out = await b.request(`/api/tokens/${t.id}`, { method: 'DELETE', bearer: a.token, headers: a.headers });
    assert.equal(out.status, 204, out.text);
    assert.equal((await b.request('/api/account', { bearer: t.token })).status, 401, 'refused during the outage');
    proxy.unblock();
    const deadline = Date.now() + 10_000;
    while ((await b.deps.cache.ping().then(() => true, () => false)) === false) {
      assert.ok(Date.now() < deadline, 'redis did not come back');
      await new Promise((r) => setTimeout(r, 100));
    }
    const stale = await s.deps.cache.get(`session:${createHash('sha256').update(t.token).digest('hex')}`);
    assert.ok(stale && stale !== 'revoked', 'the old cache entry survived the outage (the case under test)');
    for (let i = 0; i < 3; i++) assert.equal((await b.request('/api/account', { bearer: t.token })).status, 401);
    await new Promise((r) => setTimeout(r, 1100)); // the other instance reads the epoch at most once a second
    assert.equal((await s.request('/api/account', { bearer: t.token })).status, 401, 'nor does A');
  } finally {
    proxy.unblock();
    await b.close();
    await proxy.cut();
  }
});
