// POST /oauth/token as one endpoint (ADR 22): oidc-provider answers every grant, the device-code
// grant included, and refuses what RFC 6749 refuses in section 5.2's shape with Cache-Control:
// no-store: a parameter sent twice (section 3.2; `resource` included), a body that is not a form,
// a grant it does not know; a form over 16 KiB is 413. The device grant stays the tunnel CLI's
// (section 12: any other client is 400 invalid_client) and the CLI's id opens nothing else. A
// refresh token another presentation holds answers 503 temporarily_unavailable with Retry-After
// once its turn does not come. The provider's answers keep the CORS headers set before them
// (the JWKS's too). This server runs without TRUST_PROXY: the device's token is
// recorded with the address the server saw, not one a forwarded header claims.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashToken } from '../../../src/infra/crypto/tokens.js';
import { signedIn } from '../../support/accounts.js';
import type { Reply } from '../../support/http.js';
import { form, grantedTokens, register, REDIRECT, toConsent, type OAuthPerson } from '../../support/oauth.js';
import { useServer } from '../../support/server.js';

const ZONE = 'tunnels.example.test';
const s = useServer(() => ({ env: { ZONE } }));
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

function assertRefused(r: Reply, error: string, status = 400, what = error): void {
  assert.equal(r.status, status, `${what}: ${r.text}`);
  assert.match(String(r.headers['content-type']), /^application\/json/, what);
  assert.equal(r.json.error, error, `${what}: ${r.text}`);
  assert.equal(typeof r.json.error_description, 'string', what);
  assert.equal(r.json.access_token, undefined, what);
  assert.equal(r.headers['cache-control'], 'no-store', what);
}

const raw = (body: string, contentType = 'application/x-www-form-urlencoded') =>
  s.request('/oauth/token', { method: 'POST', body, headers: { 'content-type': contentType } });

async function person(): Promise<OAuthPerson> {
  const p = await signedIn(s, { verified: true });
  return { token: p.token, headers: {} };
}

test('a repeated parameter, a body that is not a form, a missing or unknown grant: 400 in RFC 6749 section 5.2 shape, no-store', async () => {
  const { client_id: clientId } = await register(s);
  const code = new URLSearchParams({ grant_type: 'authorization_code', code: 'abc', code_verifier: 'v'.repeat(43), redirect_uri: REDIRECT, client_id: clientId });
  for (const [name, value] of [['code', 'def'], ['grant_type', 'authorization_code'], ['client_id', clientId], ['resource', 'https://a.example/mcp']] as const) {
    const body = `${code}&resource=${encodeURIComponent('https://b.example/mcp')}&${name}=${encodeURIComponent(value)}`;
    assertRefused(await raw(body), 'invalid_request', 400, `${name} twice`);
  }
  assertRefused(await raw(JSON.stringify(Object.fromEntries(code)), 'application/json'), 'invalid_request', 400, 'a JSON body');
  assertRefused(await raw(''), 'invalid_request', 400, 'no parameters');
  assertRefused(await form(s, '/oauth/token', { client_id: clientId }), 'invalid_request', 400, 'no grant_type');
  assertRefused(await form(s, '/oauth/token', { grant_type: 'password', client_id: clientId, username: 'a', password: 'b' }), 'unsupported_grant_type');
  // Forms are small: one over 16 KiB is refused before anything reads it.
  assert.equal((await raw(`${code}&state=${'x'.repeat(17 * 1024)}`)).status, 413);
});

test('the device grant is the CLI\'s: another client, or none, is 400 invalid_client; the CLI\'s id opens no other grant and no authorization', async () => {
  const { client_id: clientId } = await register(s);
  const device = await form(s, '/oauth/device_authorization', { client_id: 'tunnel-cli' });
  assert.equal(device.status, 200, device.text);
  const deviceCode = device.json.device_code as string;
  assertRefused(await form(s, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId }), 'invalid_client', 400, 'a registered client');
  assertRefused(await form(s, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: deviceCode }), 'invalid_client', 400, 'no client_id');
  assertRefused(await form(s, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: 'tunnel-cli' }), 'authorization_pending', 400, 'the CLI, still pending');

  const cli = await form(s, '/oauth/token', { grant_type: 'authorization_code', code: 'abc', code_verifier: 'v'.repeat(43), redirect_uri: REDIRECT, client_id: 'tunnel-cli' });
  assert.equal(cli.status, 400, cli.text);
  assert.equal(cli.json.access_token, undefined);
  const q = new URLSearchParams({ response_type: 'code', client_id: 'tunnel-cli', redirect_uri: REDIRECT, code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', resource: 'https://a.example/mcp' });
  const authorize = await s.request(`/oauth/authorize?${q}`);
  assert.equal(authorize.status, 400, 'a plain page, never a redirect');
  assert.equal(authorize.headers.location, undefined);
});

test('the device\'s token is recorded with the address the server saw, not a forwarded one it does not trust', async () => {
  const p = await signedIn(s, { verified: true });
  const device = await form(s, '/oauth/device_authorization', { client_id: 'tunnel-cli' });
  assert.equal(device.status, 200, device.text);
  const approved = await s.request('/api/device/approve', { method: 'POST', bearer: p.token, body: { user_code: device.json.user_code } });
  assert.equal(approved.status, 204, approved.text);
  const issued = await form(s, '/oauth/token', { grant_type: DEVICE_GRANT, device_code: device.json.device_code, client_id: 'tunnel-cli' }, { 'x-forwarded-for': '203.0.113.9', 'user-agent': 'tunnel-cli/9.9' });
  assert.equal(issued.status, 200, issued.text);
  assert.equal(issued.headers['cache-control'], 'no-store');
  assert.deepEqual(Object.keys(issued.json).sort(), ['access_token', 'scope', 'token_type']);
  const { events } = (await s.request('/api/account/activity?limit=100', { bearer: p.token })).json as { events: { type: string; ip: string; user_agent: string }[] };
  const created = events.find((e) => e.type === 'token_created');
  assert.ok(created, events.map((e) => e.type).join());
  assert.equal(created.ip, '127.0.0.x');
  assert.equal(created.user_agent, 'tunnel-cli/9.9');
});

test('what the provider answers keeps the headers set before it (CORS): the token endpoint and the JWKS answer any origin', async () => {
  const origin = { origin: 'https://inspector.example' };
  const jwks = await s.request('/oauth/jwks', { headers: origin });
  assert.equal(jwks.status, 200, jwks.text);
  assert.equal(jwks.headers['access-control-allow-origin'], '*');
  const token = await s.request('/oauth/token', { method: 'POST', headers: { ...origin, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token' });
  assert.equal(token.status, 400, token.text);
  assert.equal(token.headers['access-control-allow-origin'], '*');
  assert.equal(token.headers['access-control-allow-credentials'], undefined);
});

test('a refresh token another presentation holds past 5 s: 503 temporarily_unavailable with Retry-After; once free, it rotates', async () => {
  const owner = await person();
  const flow = await toConsent(s, owner);
  const tokens = await grantedTokens(s, owner, flow);
  const lock = `oauth:rt:lock:${hashToken(tokens.refresh_token)}`;
  assert.ok(await s.deps.cache.setIfAbsent(lock, 'another presentation', 10_000));
  const refresh = () => form(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: flow.client.client_id });
  const busy = await refresh();
  assertRefused(busy, 'temporarily_unavailable', 503);
  assert.equal(busy.headers['retry-after'], '1');
  await s.deps.cache.del(lock);
  const rotated = await refresh();
  assert.equal(rotated.status, 200, rotated.text);
  assert.notEqual(rotated.json.refresh_token, tokens.refresh_token);
});
