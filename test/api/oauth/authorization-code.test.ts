// OAuth for tunnels, API.md section 13 (ADR 14): an MCP client registers (RFC 7591), sends the
// user to /oauth/authorize with PKCE and the tunnel's /mcp URL as resource; the console's consent
// API approves (or denies) and answers the client's redirect URI with code, state and iss; the
// code works once for an RFC 9068 access token bound to the tunnel, verified here with jose
// against the JWKS; refresh tokens rotate and a reused one revokes the grant.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { fromIp, randomIp, signedIn, type SignedIn } from '../../support/accounts.js';
import { needs } from '../../support/backends.js';
import { assertProblem } from '../../support/problem.js';
import { startTestServer, useServer, type Server } from '../../support/server.js';
import { createTunnel, patchTunnel } from '../../support/tunnels.js';
import { api as apiAs, authorize, form, pkce, REDIRECT, register as registerClient, toConsent as consentFlow } from '../../support/oauth.js';

const ZONE = 'tunnels.example.test';
const s = useServer(() => ({ env: { ZONE, TRUST_PROXY: 'true' } }));
type Person = SignedIn & { headers: Record<string, string> };
async function person(): Promise<Person> {
  const headers = fromIp(randomIp());
  return { ...(await signedIn(s, { headers, verified: true })), headers };
}

const api = (p: Person, path: string, method = 'GET', server: Server = s) => apiAs(p, path, method, server);
const toConsent = (owner: Person, server: Server = s) => consentFlow(server, owner);
const register = (server: Server = s) => registerClient(server);

test('the whole flow: register, authorize, consent, code, RFC 9068 token verified against the JWKS', async () => {
  const owner = await person();
  const { tunnel, resource, client, verifier, id } = await toConsent(owner);
  const seen = await api(owner, `/api/oauth/requests/${id}`);
  assert.equal(seen.status, 200, seen.text);
  assert.deepEqual(seen.json, {
    client_id: client.client_id,
    client_name: 'Desk Assistant',
    redirect_host: '127.0.0.1:8765',
    resource,
    tunnel: { id: tunnel.id, host: tunnel.host },
    scopes: ['mcp'],
    allowed: true,
  });
  const approved = await api(owner, `/api/oauth/requests/${id}/approve`, 'POST');
  assert.equal(approved.status, 200, approved.text);
  const back = new URL(approved.json.redirect_to);
  assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
  assert.equal(back.searchParams.get('state'), 'st-1');
  assert.equal(back.searchParams.get('iss'), s.deps.config.baseUrl, 'RFC 9207');
  const code = back.searchParams.get('code')!;
  assert.ok(code);
  // Decided: the request is gone.
  assertProblem(await api(owner, `/api/oauth/requests/${id}/approve`, 'POST'), 404, 'NOT_FOUND');

  const exchange = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id, resource };
  const tokens = await form(s, '/oauth/token', exchange);
  assert.equal(tokens.status, 200, tokens.text);
  assert.equal(tokens.json.token_type, 'Bearer');
  assert.equal(tokens.json.scope, 'mcp');
  assert.ok(tokens.json.refresh_token);
  const jwt = tokens.json.access_token as string;
  assert.equal(decodeProtectedHeader(jwt).typ, 'at+jwt');
  const jwks = await s.request('/oauth/jwks');
  assert.equal(jwks.status, 200);
  const { payload } = await jwtVerify(jwt, createLocalJWKSet(jwks.json), { issuer: s.deps.config.baseUrl, audience: resource, typ: 'at+jwt' });
  assert.equal(payload.sub, owner.id);
  assert.equal(payload.client_id, client.client_id);
  assert.equal(payload.scope, 'mcp');
  assert.ok(typeof payload.jti === 'string');
  assert.equal((payload.exp ?? 0) - (payload.iat ?? 0), 3600);

  // Nothing stored holds a credential in the clear: not the code, not the refresh token.
  const stored = JSON.stringify(await s.deps.db.oAuthModel.findMany({ where: { grantId: String(payload.grant_id) } }));
  assert.ok(stored.includes('RefreshToken'), 'the refresh token is stored (hashed)');
  assert.ok(!stored.includes(code), 'the code is not stored in the clear');
  assert.ok(!stored.includes(tokens.json.refresh_token), 'the refresh token is not stored in the clear');

  // Refresh: rotated. Presented again within 60 s by the same client, the old one answers a new
  // access token and the same successor (section 13a); once the successor was used, the old one
  // is reuse and revokes the whole grant.
  const refresh = (token: string, clientId = client.client_id) => form(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });
  const refreshed = await refresh(tokens.json.refresh_token);
  assert.equal(refreshed.status, 200, refreshed.text);
  assert.notEqual(refreshed.json.refresh_token, tokens.json.refresh_token);
  const other = await register();
  assert.equal((await refresh(tokens.json.refresh_token, other.client_id)).json.error, 'invalid_grant', 'another client gets no grace');
  const again = await refresh(tokens.json.refresh_token);
  assert.equal(again.status, 200, again.text);
  assert.equal(again.json.refresh_token, refreshed.json.refresh_token, 'the same successor: the chain does not fork');
  assert.notEqual(again.json.access_token, refreshed.json.access_token, 'a new access token');
  await jwtVerify(again.json.access_token, createLocalJWKSet(jwks.json), { issuer: s.deps.config.baseUrl, audience: resource, typ: 'at+jwt' });
  const next = await refresh(refreshed.json.refresh_token);
  assert.equal(next.status, 200, next.text);
  const reused = await refresh(tokens.json.refresh_token);
  assert.equal(reused.json.error, 'invalid_grant', 'its successor was used: reuse');
  const afterReuse = await refresh(next.json.refresh_token);
  assert.equal(afterReuse.json.error, 'invalid_grant', 'the grant is revoked');

  // Recorded.
  const activity = await api(owner, '/api/account/activity');
  const granted = activity.json.events.find((e: { type: string }) => e.type === 'oauth_consent_granted');
  assert.ok(granted, 'oauth_consent_granted recorded');
  assert.equal(granted.detail.client_name, 'Desk Assistant');
  assert.equal(granted.detail.tunnel_id, tunnel.id);
});

test('a code works once: its second use answers invalid_grant and revokes what the first issued', async () => {
  const owner = await person();
  const { resource, client, verifier, id } = await toConsent(owner);
  const approved = await api(owner, `/api/oauth/requests/${id}/approve`, 'POST');
  const code = new URL(approved.json.redirect_to).searchParams.get('code')!;
  const exchange = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id, resource };
  const first = await form(s, '/oauth/token', exchange);
  assert.equal(first.status, 200, first.text);
  const again = await form(s, '/oauth/token', exchange);
  assert.equal(again.status, 400);
  assert.equal(again.json.error, 'invalid_grant');
  const refresh = await form(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: first.json.refresh_token, client_id: client.client_id });
  assert.equal(refresh.json.error, 'invalid_grant', 'the refresh token of the first use is revoked');
  // A wrong verifier is refused too (PKCE).
  const other = await toConsent(owner);
  const code2 = new URL((await api(owner, `/api/oauth/requests/${other.id}/approve`, 'POST')).json.redirect_to).searchParams.get('code')!;
  const wrong = await form(s, '/oauth/token', { grant_type: 'authorization_code', code: code2, code_verifier: randomBytes(32).toString('base64url'), redirect_uri: REDIRECT, client_id: other.client.client_id, resource: other.resource });
  assert.equal(wrong.json.error, 'invalid_grant');
});

test('a native client may come back on any loopback port (RFC 8252); a web client only on its registered URI', async () => {
  const owner = await person();
  const tunnel = await createTunnel(s, owner, { access: 'oauth' });
  const resource = `https://${tunnel.host}/mcp`;
  const native = (await s.request('/oauth/register', { method: 'POST', headers: fromIp(randomIp()), body: { client_name: 'CLI app', application_type: 'native', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' } })).json;
  const { challenge } = pkce();
  const r = await authorize(s, native.client_id, resource, challenge, { redirect_uri: 'http://127.0.0.1:53412/callback' });
  assert.equal(r.status, 302, `${r.status} ${r.text}`);
  assert.match(String(r.headers.location), /\/oauth\/consent\?request=/);
  const web = await registerClient(s, { application_type: 'web' });
  assert.equal((await s.request('/oauth/register', { method: 'POST', headers: fromIp(randomIp()), body: { client_name: 'Plain web', application_type: 'web', redirect_uris: ['http://app.example.com/cb'] } })).json.error, 'invalid_redirect_uri', 'a web client on plain http is refused');
  const elsewhere = await authorize(s, web.client_id, resource, challenge, { redirect_uri: 'http://127.0.0.1:9999/callback' });
  assert.equal(elsewhere.status, 400, 'a web client: exact match only');
});

test('registration: public clients only (a secret method is registered as none), and no registration access token to keep', async () => {
  const client = await register();
  assert.equal('registration_access_token' in client, false);
  for (const method of ['client_secret_basic', 'client_secret_post']) {
    const asked = await s.request('/oauth/register', {
      method: 'POST',
      headers: fromIp(randomIp()),
      body: { client_name: 'Server app', redirect_uris: [REDIRECT], token_endpoint_auth_method: method },
    });
    assert.equal(asked.status, 201, asked.text);
    assert.equal(asked.json.token_endpoint_auth_method, 'none');
    assert.equal('client_secret' in asked.json, false, 'no secret is issued');
  }
});

test('registration takes what MCP clients send: scope, the device grant, private-use schemes (section 13a)', async () => {
  const registered = (body: Record<string, unknown>) => s.request('/oauth/register', { method: 'POST', headers: fromIp(randomIp()), body });
  const sdk = await registered({ client_name: 'SDK client', redirect_uris: [REDIRECT], scope: 'mcp', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' });
  assert.equal(sdk.status, 201, sdk.text);
  const vscode = await registered({
    client_name: 'Visual Studio Code',
    redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
    grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  assert.equal(vscode.status, 201, vscode.text);
  assert.deepEqual(vscode.json.grant_types, ['authorization_code', 'refresh_token'], 'the answer shows what was registered');
  const cursor = await registered({ client_name: 'Cursor', redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/callback'], token_endpoint_auth_method: 'none' });
  assert.equal(cursor.status, 201, cursor.text);
  assert.equal(cursor.json.application_type, 'native', 'only private-use and loopback URIs: a native client');
  const unknownScope = await registered({ client_name: 'Greedy', redirect_uris: [REDIRECT], scope: 'mcp admin' });
  assert.equal(unknownScope.status, 400, unknownScope.text);
  assert.equal(unknownScope.json.error, 'invalid_client_metadata');
});

test('deny: the redirect carries error=access_denied; no code', async () => {
  const owner = await person();
  const { id } = await toConsent(owner);
  const denied = await api(owner, `/api/oauth/requests/${id}/deny`, 'POST');
  assert.equal(denied.status, 200, denied.text);
  const back = new URL(denied.json.redirect_to);
  assert.equal(back.searchParams.get('error'), 'access_denied');
  assert.equal(back.searchParams.get('state'), 'st-1');
  assert.equal(back.searchParams.get('code'), null);
});

test('someone not allowed on the tunnel sees why and cannot approve; an allowed @domain can', async () => {
  const owner = await person();
  const { id, tunnel } = await toConsent(owner);
  const stranger = await person();
  const seen = await api(stranger, `/api/oauth/requests/${id}`);
  assert.equal(seen.status, 200, seen.text);
  assert.equal(seen.json.allowed, false);
  assertProblem(await api(stranger, `/api/oauth/requests/${id}/approve`, 'POST'), 403, 'FORBIDDEN');
  // Bound to the session that opened it: the owner cannot take it over.
  assertProblem(await api(owner, `/api/oauth/requests/${id}`), 404, 'NOT_FOUND');
  const domain = stranger.email.slice(stranger.email.lastIndexOf('@'));
  assert.equal((await patchTunnel(s, owner, tunnel.id, { allowed_emails: [domain] })).status, 200);
  const ok = await api(stranger, `/api/oauth/requests/${id}/approve`, 'POST');
  assert.equal(ok.status, 200, ok.text);
  assert.ok(new URL(ok.json.redirect_to).searchParams.get('code'));
});

test('authorize refuses a public tunnel, a plain challenge and a missing PKCE; an unknown request is 404', async () => {
  const owner = await person();
  const open = await createTunnel(s, owner);
  const client = await register();
  const { challenge } = pkce();
  const publicOne = await authorize(s, client.client_id, `https://${open.host}/mcp`, challenge);
  const loc = new URL(String(publicOne.headers.location));
  assert.equal(loc.searchParams.get('error'), 'invalid_target', `${publicOne.status} ${publicOne.headers.location}`);
  const oauthOne = await createTunnel(s, owner, { access: 'oauth' });
  const plain = await authorize(s, client.client_id, `https://${oauthOne.host}/mcp`, 'abc', { code_challenge_method: 'plain' });
  assert.equal(new URL(String(plain.headers.location)).searchParams.get('error'), 'invalid_request');
  const q = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, state: 's', resource: `https://${oauthOne.host}/mcp` });
  const noPkce = await s.request(`/oauth/authorize?${q}`);
  assert.equal(new URL(String(noPkce.headers.location)).searchParams.get('error'), 'invalid_request');
  // A redirect_uri that is not registered never redirects.
  const wrongRedirect = await s.request(`/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: 'https://evil.example/cb', code_challenge: challenge, code_challenge_method: 'S256', resource: `https://${oauthOne.host}/mcp` })}`);
  assert.equal(wrongRedirect.status, 400);
  assert.equal(wrongRedirect.headers.location, undefined);
  assert.match(String(wrongRedirect.headers['content-type']), /^text\/html/);
  assert.match(wrongRedirect.text, /redirect_uri/);
  assert.doesNotMatch(wrongRedirect.text, /<script/i);
  assertProblem(await api(owner, '/api/oauth/requests/nope'), 404, 'NOT_FOUND');
});

test('the metadata document lists the authorization-code endpoints beside the device grant', async () => {
  const r = await s.request('/.well-known/oauth-authorization-server');
  const base = s.deps.config.baseUrl;
  assert.equal(r.json.authorization_endpoint, `${base}/oauth/authorize`);
  assert.equal(r.json.registration_endpoint, `${base}/oauth/register`);
  assert.equal(r.json.jwks_uri, `${base}/oauth/jwks`);
  assert.deepEqual(r.json.response_types_supported, ['code']);
  assert.deepEqual(r.json.code_challenge_methods_supported, ['S256']);
  assert.equal(r.json.authorization_response_iss_parameter_supported, true);
  for (const g of ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']) assert.ok(r.json.grant_types_supported.includes(g), g);
  assert.ok(r.json.token_endpoint_auth_methods_supported.includes('none'));
});

const shared = needs(['DATABASE_URL', 'REDIS_URL'], 'two instances sharing PostgreSQL and Redis');

test('two instances: authorized on one, consented and exchanged on the other, refreshed on the first', shared, async () => {
  const b = await startTestServer({ smtp: s.smtp, env: { ZONE, TRUST_PROXY: 'true' } });
  try {
    const owner = await person();
    const { resource, client, verifier, id } = await toConsent(owner, s);
    const approved = await api(owner, `/api/oauth/requests/${id}/approve`, 'POST', b);
    assert.equal(approved.status, 200, approved.text);
    const code = new URL(approved.json.redirect_to).searchParams.get('code')!;
    const tokens = await form(b, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: client.client_id, resource });
    assert.equal(tokens.status, 200, tokens.text);
    const jwksA = (await s.request('/oauth/jwks')).json;
    await jwtVerify(tokens.json.access_token, createLocalJWKSet(jwksA), { audience: resource });
    const refreshed = await form(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.json.refresh_token, client_id: client.client_id });
    assert.equal(refreshed.status, 200, refreshed.text);
  } finally {
    await b.close();
  }
});

test('dynamic registration: 100 per network an hour; a registration expires in 24 hours unless it gets tokens', async () => {
  const network = randomIp();
  const fromNet = (ip: string) => s.request('/oauth/register', { method: 'POST', headers: fromIp(ip), body: { client_name: 'Flood', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' } });
  for (let i = 0; i < 100; i++) assert.equal((await fromNet(network)).status, 201);
  const limited = await fromNet(network);
  assert.equal(limited.status, 429, limited.text);
  assert.equal(limited.json.error, 'temporarily_unavailable');
  assert.ok(Number(limited.headers['retry-after']) > 0);
  assert.equal((await fromNet(randomIp())).status, 201, 'another network registers');

  const owner = await person();
  const flow = await toConsent(owner);
  const row = await s.deps.db.oAuthModel.findUniqueOrThrow({ where: { kind_id: { kind: 'Client', id: flow.client.client_id } } });
  const hours = (row.expiresAt!.getTime() - Date.now()) / 3600_000;
  assert.ok(hours > 23.9 && hours <= 24, `expires in ${hours} hours`);
  const approved = await api(owner, `/api/oauth/requests/${flow.id}/approve`, 'POST');
  const code = new URL(approved.json.redirect_to).searchParams.get('code')!;
  const tokens = await form(s, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: flow.verifier, redirect_uri: REDIRECT, client_id: flow.client.client_id, resource: flow.resource });
  assert.equal(tokens.status, 200, tokens.text);
  let kept = null as Date | null | undefined;
  for (let i = 0; i < 50 && kept !== null; i++) {
    kept = (await s.deps.db.oAuthModel.findUniqueOrThrow({ where: { kind_id: { kind: 'Client', id: flow.client.client_id } } })).expiresAt;
    if (kept !== null) await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(kept, null, 'a client in use no longer expires');
});

test('the hourly purge deletes expired models (an unused client after its 24 hours), not live ones', async () => {
  const { purgeExpired } = await import('../../../src/domain/retention/retention.js');
  const client = await register();
  const live = await s.deps.db.oAuthModel.findUniqueOrThrow({ where: { kind_id: { kind: 'Client', id: client.client_id } } });
  const later = new Date(live.expiresAt!.getTime() + 60_000);
  const other = await register();
  await s.deps.db.oAuthModel.updateMany({ where: { kind: 'Client', id: other.client_id }, data: { expiresAt: null } });
  await purgeExpired({ sql: s.deps.sql, clock: () => later });
  assert.equal(await s.deps.db.oAuthModel.count({ where: { kind: 'Client', id: client.client_id } }), 0, 'unused for 24 hours: gone');
  assert.equal(await s.deps.db.oAuthModel.count({ where: { kind: 'Client', id: other.client_id } }), 1, 'in use: kept');
});

test('an instance whose ENCRYPTION_KEY cannot open the shared signing keys stays up and answers 503 on OAuth only', shared, async () => {
  await s.request('/oauth/jwks'); // the keys exist, sealed under this server's key
  const other = await startTestServer({ smtp: s.smtp, env: { ZONE, TRUST_PROXY: 'true', ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64') } });
  try {
    assert.equal((await other.request('/healthz')).status, 200, 'it started');
    const jwks = await other.request('/oauth/jwks');
    assert.equal(jwks.status, 503, jwks.text);
    assert.equal(jwks.json.error, 'temporarily_unavailable');
    const owner = await person();
    const consent = await other.request('/api/oauth/requests/anything', { bearer: owner.token });
    assert.equal(consent.status, 503, consent.text);
    assert.equal((await s.request('/oauth/jwks')).status, 200, 'the other instances are unaffected');
  } finally {
    await other.close();
  }
});

test('resource is required: an authorization request without one is refused', async () => {
  const client = await register();
  const { challenge } = pkce();
  const q = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's', scope: 'mcp' });
  const r = await s.request(`/oauth/authorize?${q}`);
  assert.equal(r.status, 302, r.text);
  const back = new URL(String(r.headers.location));
  assert.equal(`${back.origin}${back.pathname}`, REDIRECT, 'an error goes back to the client, not to the consent page');
  assert.equal(back.searchParams.get('error'), 'invalid_target');
});

test('RFC 7009: a client revokes its refresh token at /oauth/revoke; the grant then gives nothing', async () => {
  const owner = await person();
  const flow = await toConsent(owner);
  const approved = await api(owner, `/api/oauth/requests/${flow.id}/approve`, 'POST');
  const code = new URL(approved.json.redirect_to).searchParams.get('code')!;
  const tokens = await form(s, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: flow.verifier, redirect_uri: REDIRECT, client_id: flow.client.client_id, resource: flow.resource });
  const revoked = await form(s, '/oauth/revoke', { token: tokens.json.refresh_token, token_type_hint: 'refresh_token', client_id: flow.client.client_id });
  assert.equal(revoked.status, 200, revoked.text);
  const after = await form(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.json.refresh_token, client_id: flow.client.client_id });
  assert.equal(after.json.error, 'invalid_grant');
  assert.equal((await form(s, '/oauth/revoke', { token: 'unknown-token', client_id: flow.client.client_id })).status, 200, 'whatever the token was');
});

test('browser MCP clients: the protocol endpoints answer any origin (CORS *, preflight); the consent API stays same-site', async () => {
  const origin = { origin: 'https://inspector.example' };
  const preflight = await s.request('/oauth/token', { method: 'OPTIONS', headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers['access-control-allow-origin'], '*');
  assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
  const reg = await s.request('/oauth/register', {
    method: 'POST',
    headers: { ...origin, ...fromIp(randomIp()) },
    body: { client_name: 'Browser client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
  });
  assert.equal(reg.status, 201, reg.text);
  assert.equal(reg.headers['access-control-allow-origin'], '*');
  assert.equal(reg.headers['access-control-allow-credentials'], undefined);
  const token = await s.request('/oauth/token', { method: 'POST', headers: { ...origin, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=nope&client_id=' + reg.json.client_id });
  assert.equal(token.status, 400);
  assert.equal(token.headers['access-control-allow-origin'], '*');
  // A cookie-authenticated consent answer from another origin is still refused.
  const owner = await person();
  const login = await s.request('/auth/login', { method: 'POST', body: { email: owner.email, password: owner.password }, headers: owner.headers });
  const cookie = String(login.headers['set-cookie']).split(';')[0]!;
  const crossSite = await s.request('/api/oauth/requests/whatever/approve', { method: 'POST', cookie, headers: origin });
  assertProblem(crossSite, 403, 'FORBIDDEN');
});
