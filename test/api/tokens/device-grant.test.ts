// The device authorization grant (API.md section 12, RFC 8628) and the authorization server's
// metadata (RFC 8414) and revocation (RFC 7009): the CLI asks for codes, the signed-in person
// looks the code up and approves or denies it, the CLI's poll answers authorization_pending,
// slow_down (interval + 5 s), access_denied or expired_token, and once approved a service token
// named after the device, exactly once. Wrong user codes are limited per network.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { DEVICE_REQUESTS_EVERYWHERE, DEVICE_WRONG_CODES_EVERYWHERE } from '../../../src/domain/device-grant/limits.js';
import { PASSWORD, fromIp, randomIp, signedIn, type SignedIn } from '../../support/accounts.js';
import { needs } from '../../support/backends.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { startTestServer, useServer, type Server } from '../../support/server.js';
import type { Reply } from '../../support/http.js';

const s = useServer(() => ({ env: { TRUST_PROXY: 'true' } }));

// This file is one client asking for many codes and trying many wrong ones within a minute: the
// service-wide bounds (device-code-ceiling.test.ts) are raised here so they do not hide the rules
// tested (the per-network limits among them).
const defaults = { wrong: DEVICE_WRONG_CODES_EVERYWHERE.max, requests: DEVICE_REQUESTS_EVERYWHERE.max };
before(() => {
  DEVICE_WRONG_CODES_EVERYWHERE.max = 1_000_000;
  DEVICE_REQUESTS_EVERYWHERE.max = 1_000_000;
});
after(() => {
  DEVICE_WRONG_CODES_EVERYWHERE.max = defaults.wrong;
  DEVICE_REQUESTS_EVERYWHERE.max = defaults.requests;
});
const GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const CLI_AGENT = 'tunnel-cli/1.4.0 (linux; x64)';
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;
const WINDOW_MS = 600_000;

type Person = SignedIn & { headers: Record<string, string> };

async function person(opts: { verified?: boolean } = {}): Promise<Person> {
  const headers = fromIp(randomIp());
  return { ...(await signedIn(s, { headers, verified: opts.verified ?? true })), headers };
}

/** A form-encoded POST, as the CLI sends it. */
function form(server: Server, path: string, params: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
  return server.request(path, {
    method: 'POST',
    body: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': CLI_AGENT, ...headers },
  });
}

interface Device {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
  headers: Record<string, string>;
}

async function startDevice(server: Server = s, params: Record<string, string> = {}): Promise<Device> {
  const headers = fromIp(randomIp());
  const r = await form(server, '/oauth/device_authorization', { client_id: 'tunnel-cli', ...params }, headers);
  assert.equal(r.status, 200, r.text);
  return { ...r.json, headers };
}

const poll = (d: Device, server: Server = s) => form(server, '/oauth/token', { grant_type: GRANT, device_code: d.device_code, client_id: 'tunnel-cli' }, d.headers);

const api = (p: Person, path: string, userCode: string, server: Server = s) =>
  server.request(`/api/device/${path}`, { method: 'POST', bearer: p.token, body: { user_code: userCode }, headers: p.headers });

function assertOAuthError(r: Reply, error: string, status = 400): void {
  assert.equal(r.status, status, r.text);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  assert.equal(r.json.error, error, r.text);
  assert.equal(typeof r.json.error_description, 'string');
  assert.equal(r.headers['cache-control'], 'no-store');
}

test('RFC 8414 metadata names the issuer, the device, token and revocation endpoints, the grant and the scopes', async () => {
  const r = await s.request('/.well-known/oauth-authorization-server');
  assert.equal(r.status, 200, r.text);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  assert.equal(r.headers['access-control-allow-origin'], '*');
  const base = s.deps.config.baseUrl;
  assert.equal(r.json.issuer, base);
  assert.equal(r.json.device_authorization_endpoint, `${base}/oauth/device_authorization`);
  assert.equal(r.json.token_endpoint, `${base}/oauth/token`);
  assert.equal(r.json.revocation_endpoint, `${base}/oauth/revoke`);
  assert.ok(r.json.grant_types_supported.includes(GRANT));
  assert.deepEqual([...r.json.scopes_supported].sort(), ['account:read', 'mcp', 'tunnels:read', 'tunnels:write'], 'the token scopes, and section 13\'s mcp');
  assert.ok(r.json.token_endpoint_auth_methods_supported.includes('none'));
  assert.equal(r.json.device_authorization_endpoint.startsWith(r.json.issuer), true, 'every endpoint under the issuer');
});

test('device authorization: codes, the APP_URL/device page, 600 s and a 5 s interval; the user code from the unambiguous alphabet', async () => {
  const d = await startDevice();
  assert.deepEqual(Object.keys(d).filter((k) => k !== 'headers').sort(), ['device_code', 'expires_in', 'interval', 'user_code', 'verification_uri', 'verification_uri_complete']);
  assert.match(d.user_code, USER_CODE);
  assert.equal(d.verification_uri, `${s.deps.config.appUrl}/device`);
  assert.equal(d.verification_uri_complete, `${s.deps.config.appUrl}/device?user_code=${d.user_code}`);
  assert.equal(d.expires_in, 600);
  assert.equal(d.interval, 5);
  assert.ok(d.device_code.length >= 43, 'the device code carries at least 256 bits');
  // Fresh codes each time; only their hashes are stored.
  const other = await startDevice();
  assert.notEqual(other.device_code, d.device_code);
  assert.notEqual(other.user_code, d.user_code);
  const row = await s.deps.db.deviceAuthorization.findUnique({ where: { deviceCodeHash: createHash('sha256').update(d.device_code).digest('hex') } });
  assert.ok(row, 'found by the hash of the device code');
  assert.equal(row.userCodeHash, createHash('sha256').update(d.user_code.replace('-', '')).digest('hex'));
  assert.deepEqual(row.scopes, ['tunnels:read', 'tunnels:write'], 'the default scope');
  assert.equal(row.userAgent, CLI_AGENT);
  const stored = JSON.stringify(row);
  assert.ok(!stored.includes(d.device_code) && !stored.includes(d.user_code.replace('-', '')), 'neither code is stored in the clear');
});

test('device authorization refuses an unknown client, an unknown scope and a body that is not a form', async () => {
  assertOAuthError(await form(s, '/oauth/device_authorization', { client_id: 'someone-else' }), 'invalid_client');
  assertOAuthError(await form(s, '/oauth/device_authorization', {}), 'invalid_client');
  assertOAuthError(await form(s, '/oauth/device_authorization', { client_id: 'tunnel-cli', scope: 'tunnels:read admin' }), 'invalid_scope');
  const json = await s.request('/oauth/device_authorization', { method: 'POST', body: { client_id: 'tunnel-cli' } });
  assertOAuthError(json, 'invalid_request');
  const twice = await s.request('/oauth/device_authorization', {
    method: 'POST',
    body: 'client_id=tunnel-cli&client_id=tunnel-cli',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assertOAuthError(twice, 'invalid_request');
  const scoped = await startDevice(s, { scope: 'account:read  tunnels:read' });
  const row = await s.deps.db.deviceAuthorization.findUnique({ where: { deviceCodeHash: createHash('sha256').update(scoped.device_code).digest('hex') } });
  assert.deepEqual(row?.scopes, ['tunnels:read', 'account:read']);
});

test('the whole grant: pending, slow_down growing the interval, lookup, approve, one token named after the device', async () => {
  const p = await person();
  const d = await startDevice();
  assertOAuthError(await poll(d), 'authorization_pending');
  // Polled again at once: slow down, and the interval is now 10 s.
  assertOAuthError(await poll(d), 'slow_down');
  s.clock.advance(6_000);
  assertOAuthError(await poll(d), 'slow_down', 400);
  s.clock.advance(15_000);
  assertOAuthError(await poll(d), 'authorization_pending');
  const row = await s.deps.db.deviceAuthorization.findUnique({ where: { deviceCodeHash: createHash('sha256').update(d.device_code).digest('hex') } });
  assert.equal(row?.intervalSeconds, 15, 'two slow_downs: 5 + 5 + 5');

  // The console's lookup: case and the dash ignored.
  const lookup = await api(p, 'lookup', d.user_code.replace('-', '').toLowerCase());
  assert.equal(lookup.status, 200, lookup.text);
  assert.deepEqual(Object.keys(lookup.json).sort(), ['client_id', 'ip', 'requested_at', 'scopes']);
  assert.equal(lookup.json.client_id, 'tunnel-cli');
  assert.deepEqual(lookup.json.scopes, ['tunnels:read', 'tunnels:write']);
  assert.match(lookup.json.ip, /^10\.\d+\.\d+\.x$/);
  assert.equal(lookup.json.ip, `${d.headers['x-forwarded-for']!.split('.').slice(0, 3).join('.')}.x`);
  assert.ok(Math.abs(Date.parse(lookup.json.requested_at) - s.clock.now().getTime()) < 60_000);

  const approved = await api(p, 'approve', ` ${d.user_code.toLowerCase()} `);
  assert.equal(approved.status, 204, approved.text);
  s.clock.advance(16_000);
  const issued = await poll(d);
  assert.equal(issued.status, 200, issued.text);
  assert.equal(issued.headers['cache-control'], 'no-store');
  assert.deepEqual(Object.keys(issued.json).sort(), ['access_token', 'scope', 'token_type']);
  assert.equal(issued.json.token_type, 'Bearer');
  assert.equal(issued.json.scope, 'tunnels:read tunnels:write');
  assert.match(issued.json.access_token, /^tsk_[0-9A-Za-z]{38}$/);

  // Exactly once.
  assertOAuthError(await poll(d), 'invalid_grant');

  // A service token like any other: listed, with the scopes, no expiry, reaching only its scopes.
  const token = issued.json.access_token as string;
  const list = await s.request('/api/tokens', { bearer: p.token });
  assert.equal(list.json.tokens.length, 1);
  assert.equal(list.json.tokens[0].name, `Tunnel CLI (${CLI_AGENT})`);
  assert.deepEqual(list.json.tokens[0].scopes, ['tunnels:read', 'tunnels:write']);
  assert.equal(list.json.tokens[0].expires_at, null);
  assert.equal((await s.request('/api/tunnels', { bearer: token })).status, 200);
  assertProblem(await s.request('/api/account', { bearer: token }), 403, 'FORBIDDEN');
  assertProblem(await s.request('/api/sessions', { bearer: token }), 403, 'FORBIDDEN');

  // Recorded, and the owner told.
  const activity = await s.request('/api/account/activity', { bearer: p.token });
  const types = activity.json.events.map((e: { type: string }) => e.type);
  assert.ok(types.includes('device_approved'), types.join());
  assert.ok(types.includes('token_created'), types.join());
  const approvedEvent = activity.json.events.find((e: { type: string }) => e.type === 'device_approved');
  assert.equal(approvedEvent.detail.client_id, 'tunnel-cli');
  assert.equal(approvedEvent.detail.scopes, 'tunnels:read tunnels:write');
  const mail = await s.smtp.waitFor(p.email, 'token-created');
  assert.match(mail.raw, /Tunnel CLI/);
  assert.doesNotMatch(mail.raw, /tsk_/);
});

test('a denied device hears access_denied; an unknown device code invalid_grant; a wrong client invalid_client', async () => {
  const p = await person();
  const d = await startDevice();
  assert.equal((await api(p, 'deny', d.user_code)).status, 204);
  assertOAuthError(await poll(d), 'access_denied');
  s.clock.advance(6_000);
  assertOAuthError(await poll(d), 'access_denied');
  // Decided: the code is no longer found, and cannot be approved after the fact.
  assertProblem(await api(p, 'approve', d.user_code), 404, 'NOT_FOUND');
  assertOAuthError(await form(s, '/oauth/token', { grant_type: GRANT, device_code: 'nope', client_id: 'tunnel-cli' }), 'invalid_grant');
  assertOAuthError(await form(s, '/oauth/token', { grant_type: GRANT, device_code: d.device_code, client_id: 'other' }), 'invalid_client');
  assertOAuthError(await form(s, '/oauth/token', { grant_type: GRANT, client_id: 'tunnel-cli' }), 'invalid_request');
  assertOAuthError(await form(s, '/oauth/token', { grant_type: 'password', client_id: 'tunnel-cli' }), 'unsupported_grant_type');
  assertOAuthError(await form(s, '/oauth/token', { client_id: 'tunnel-cli' }), 'invalid_request');
});

test('after 600 s the device hears expired_token and the code is gone from the page, approved or not', async () => {
  const p = await person();
  const pending = await startDevice();
  const approved = await startDevice();
  assert.equal((await api(p, 'approve', approved.user_code)).status, 204);
  s.clock.advance(600_000);
  assertOAuthError(await poll(pending), 'expired_token');
  assertOAuthError(await poll(approved), 'expired_token');
  const late = await person();
  assertProblem(await api(late, 'lookup', pending.user_code), 404, 'NOT_FOUND');
  assert.equal((await s.request('/api/tokens', { bearer: p.token })).json.tokens.length, 0, 'nothing was issued');
});

test('approving needs a verified address and a recent sign-in (7a); signed out is 401; tokens never reach the page', async () => {
  const unverified = await person({ verified: false });
  const d1 = await startDevice();
  assertProblem(await api(unverified, 'approve', d1.user_code), 403, 'FORBIDDEN');
  const p = await person();
  s.clock.advance(WINDOW_MS + 1000);
  const d2 = await startDevice();
  assertProblem(await api(p, 'approve', d2.user_code), 403, 'REAUTH_REQUIRED');
  // Lookup and deny need no recent sign-in.
  assert.equal((await api(p, 'lookup', d2.user_code)).status, 200);
  const reauth = await s.request('/api/account/reauth', { method: 'POST', bearer: p.token, body: { password: PASSWORD }, headers: p.headers });
  assert.equal(reauth.status, 204, reauth.text);
  assert.equal((await api(p, 'approve', d2.user_code)).status, 204);
  assertProblem(await s.request('/api/device/lookup', { method: 'POST', body: { user_code: d1.user_code } }), 401, 'UNAUTHENTICATED');

  // A service token (even with every scope) cannot approve devices, on REST or GraphQL.
  const made = await s.request('/api/tokens', { method: 'POST', bearer: p.token, body: { name: 'all', scopes: ['account:read', 'tunnels:read', 'tunnels:write'] }, headers: p.headers });
  assert.equal(made.status, 201, made.text);
  const d3 = await startDevice();
  assertProblem(await s.request('/api/device/approve', { method: 'POST', bearer: made.json.token, body: { user_code: d3.user_code } }), 403, 'FORBIDDEN');
  const viaGraph = await gql(s, 'query ($c: String!) { deviceRequest(userCode: $c) { clientId } }', { c: d3.user_code }, { bearer: made.json.token });
  assert.equal(gqlCode(viaGraph), 'FORBIDDEN');
});

test('wrong user codes: 10 per network in 15 minutes, then 429 even for a right one; right codes do not count; other networks unaffected', async () => {
  const p = await person();
  const d = await startDevice();
  const network = randomIp();
  const from = { ...p, headers: fromIp(network) };
  // Right codes are taken back: any number of them.
  for (let i = 0; i < 12; i++) assert.equal((await api(from, 'lookup', d.user_code)).status, 200);
  for (let i = 0; i < 10; i++) assertProblem(await api(from, 'lookup', i % 2 ? 'BCDF-GHJK' : 'not a code'), 404, 'NOT_FOUND');
  const limited = await api(from, 'lookup', d.user_code);
  assertProblem(limited, 429, 'RATE_LIMITED');
  assert.ok(Number(limited.headers['retry-after']) > 0);
  assertProblem(await api(from, 'approve', d.user_code), 429, 'RATE_LIMITED');
  // The same /24 is the same network.
  const neighbour = network.split('.').slice(0, 3).join('.') + '.254';
  assertProblem(await api({ ...p, headers: fromIp(neighbour) }, 'lookup', d.user_code), 429, 'RATE_LIMITED');
  // Another network is not limited.
  assert.equal((await api({ ...p, headers: fromIp(randomIp()) }, 'approve', d.user_code)).status, 204);
});

test('two polls racing after approval: exactly one token, the other hears invalid_grant', async () => {
  const p = await person();
  const d = await startDevice();
  assert.equal((await api(p, 'approve', d.user_code)).status, 204);
  const answers = await Promise.all(Array.from({ length: 6 }, () => poll(d)));
  assert.deepEqual(answers.map((r) => r.status).sort(), [200, 400, 400, 400, 400, 400]);
  for (const r of answers.filter((a) => a.status === 400)) assert.equal(r.json.error, 'invalid_grant');
  assert.equal(await s.deps.db.serviceToken.count({ where: { accountId: p.id } }), 1);
});

test('approving with 50 live tokens is 409 and issues nothing', async () => {
  const p = await person();
  await s.deps.db.serviceToken.createMany({
    data: Array.from({ length: 50 }, (_, i) => ({ accountId: p.id, name: `t${i}`, tokenHash: createHash('sha256').update(`${p.id}-${i}`).digest('hex'), scopes: ['account:read'] })),
  });
  const d = await startDevice();
  assertProblem(await api(p, 'approve', d.user_code), 409, 'CONFLICT');
  assertOAuthError(await poll(d), 'authorization_pending');
});

test('a long user agent is cut to fit the 100-character token name; none at all reads "unknown device"', async () => {
  const p = await person();
  const names: string[] = [];
  for (const agent of ['x'.repeat(300), '']) {
    const headers = fromIp(randomIp());
    const r = await form(s, '/oauth/device_authorization', { client_id: 'tunnel-cli' }, { ...headers, 'user-agent': agent });
    assert.equal(r.status, 200, r.text);
    assert.equal((await api(p, 'approve', r.json.user_code)).status, 204);
    const issued = await form(s, '/oauth/token', { grant_type: GRANT, device_code: r.json.device_code, client_id: 'tunnel-cli' }, { ...headers, 'user-agent': agent });
    assert.equal(issued.status, 200, issued.text);
  }
  for (const t of (await s.request('/api/tokens', { bearer: p.token })).json.tokens) names.push(t.name);
  assert.ok(names.includes('Tunnel CLI (unknown device)'), names.join(' | '));
  const long = names.find((n) => n.startsWith('Tunnel CLI (xxx'));
  assert.ok(long && [...long].length === 100 && long.endsWith('…)'), long);
});

test('RFC 7009 revocation: 200 whatever the token; a service token stops working at once', async () => {
  const p = await person();
  const d = await startDevice();
  assert.equal((await api(p, 'approve', d.user_code)).status, 204);
  const token = (await poll(d)).json.access_token as string;
  assert.equal((await s.request('/api/tunnels', { bearer: token })).status, 200);
  for (const garbage of ['nope', `tsk_${'a'.repeat(38)}`, p.token]) {
    const r = await form(s, '/oauth/revoke', { token: garbage, client_id: 'tunnel-cli' });
    assert.equal(r.status, 200, r.text);
  }
  assert.equal((await s.request('/api/account', { bearer: p.token })).status, 200, 'a session token is not revoked by this endpoint');
  const r = await form(s, '/oauth/revoke', { token, token_type_hint: 'access_token' });
  assert.equal(r.status, 200, r.text);
  assertProblem(await s.request('/api/tunnels', { bearer: token }), 401, 'UNAUTHENTICATED');
  assert.equal((await s.request('/api/tokens', { bearer: p.token })).json.tokens.length, 0);
  const activity = await s.request('/api/account/activity', { bearer: p.token });
  assert.ok(activity.json.events.some((e: { type: string }) => e.type === 'token_revoked'));
  assert.equal((await form(s, '/oauth/revoke', { token })).status, 200, 'again: still 200');
  assertOAuthError(await form(s, '/oauth/revoke', {}), 'invalid_request');
});

test('the hourly purge deletes device requests an hour after they expired, not before', async () => {
  const d = await startDevice();
  const hash = createHash('sha256').update(d.device_code).digest('hex');
  const { purgeExpired } = await import('../../../src/domain/retention/retention.js');
  s.clock.advance(600_000 + 30 * 60_000);
  await purgeExpired(s.deps);
  assert.ok(await s.deps.db.deviceAuthorization.findUnique({ where: { deviceCodeHash: hash } }), 'kept: a late poll still hears expired_token');
  assertOAuthError(await poll(d), 'expired_token');
  s.clock.advance(31 * 60_000);
  await purgeExpired(s.deps);
  assert.equal(await s.deps.db.deviceAuthorization.findUnique({ where: { deviceCodeHash: hash } }), null);
  assertOAuthError(await poll(d), 'invalid_grant');
});

test('an account deleted after approving: the device gets nothing', async () => {
  const p = await person();
  const d = await startDevice();
  assert.equal((await api(p, 'approve', d.user_code)).status, 204);
  const del = await s.request('/api/account', { method: 'DELETE', bearer: p.token, body: { email: p.email, password: PASSWORD }, headers: p.headers });
  assert.equal(del.status, 204, del.text);
  assertOAuthError(await poll(d), 'invalid_grant');
});

const shared = needs(['DATABASE_URL', 'REDIS_URL'], 'two instances sharing PostgreSQL and Redis');

test('two instances: asked on one, approved on the other, exchanged on either once; the guess limit is shared', shared, async () => {
  const b = await startTestServer({ smtp: s.smtp, env: { TRUST_PROXY: 'true' } });
  try {
    const p = await person();
    const d = await startDevice(s);
    assertOAuthError(await poll(d, b), 'authorization_pending');
    assert.equal((await api(p, 'approve', d.user_code, b)).status, 204);
    const answers = await Promise.all([poll(d, s), poll(d, b)]);
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 400]);
    const network = randomIp();
    const from = { ...p, headers: fromIp(network) };
    for (let i = 0; i < 10; i++) assertProblem(await api(from, 'lookup', 'ZZZZ-ZZZZ', i % 2 ? s : b), 404, 'NOT_FOUND');
    const other = await startDevice(b);
    assertProblem(await api(from, 'lookup', other.user_code, s), 429, 'RATE_LIMITED');
    assertProblem(await api(from, 'lookup', other.user_code, b), 429, 'RATE_LIMITED');
  } finally {
    await b.close();
  }
});
