// API.md section 13a, trust: allowed_emails match only proven addresses; the first proof of an
// address, signing out everywhere, a password reset and a password change revoke every OAuth
// grant of the account; approving consent needs a recent sign-in (and the request survives the
// re-authentication); a consent request is bound to the session whose cookie came with
// /oauth/authorize, or to the first session that opens it; /oauth/authorize is limited per
// network before any work; the preflights of the metadata documents and protocol endpoints allow
// the headers MCP clients send.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { fromIp, login, PASSWORD, randomIp, signedIn, verify, type SignedIn } from '../../support/accounts.js';
import { invalidateIntrospections } from '../../../src/domain/oauth/introspection-cache.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { CARD_PATH, createTunnel } from '../../support/tunnels.js';
import { form, pkce, REDIRECT, register } from '../../support/oauth.js';

const ZONE = 'tunnels.example.test';
const INTERNAL = 'internal-test-token-0123456789abcdef';
const WINDOW_MS = 600_000;
const s = useServer(() => ({ env: { ZONE, TRUST_PROXY: 'true', INTERNAL_API_TOKEN: INTERNAL } }));

type Person = SignedIn & { headers: Record<string, string> };
/** A signed-in account from a network of its own (verified unless told otherwise). */
async function person(opts: { verified?: boolean; email?: string } = {}): Promise<Person> {
  const headers = fromIp(randomIp());
  return { ...(await signedIn(s, { headers, verified: opts.verified ?? true, ...(opts.email ? { email: opts.email } : {}) })), headers };
}

type Tunnel = { id: string; host: string; subdomain: string };
const api = (p: Person, path: string, method = 'GET') => s.request(path, { method, bearer: p.token, headers: p.headers });
const introspect = (token: string) => form(s, '/oauth/introspect', { token }, { authorization: `Bearer ${INTERNAL}` });
const refresh = (f: Flow, token: string) => form(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: token, client_id: f.clientId });

interface Flow {
  id: string;
  clientId: string;
  verifier: string;
  resource: string;
}

/** An MCP client registers and sends a browser to /oauth/authorize (with `headers`, e.g. its cookie): the consent request. */
async function startFlow(tunnel: Tunnel, headers: Record<string, string> = {}): Promise<Flow> {
  const client = await register(s);
  const { verifier, challenge } = pkce();
  const resource = `https://${tunnel.host}/mcp`;
  const q = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 'st-1', scope: 'mcp', resource });
  const r = await s.request(`/oauth/authorize?${q}`, { headers: { ...fromIp(randomIp()), ...headers } });
  assert.equal(r.status, 302, `${r.status} ${r.text}`);
  const consent = new URL(String(r.headers.location));
  assert.equal(`${consent.origin}${consent.pathname}`, `${s.deps.config.appUrl}/oauth/consent`);
  return { id: consent.searchParams.get('request')!, clientId: client.client_id, verifier, resource };
}

/** Approves as `holder` and exchanges the code. */
async function tokensFor(holder: Person, f: Flow): Promise<{ access: string; refreshToken: string }> {
  const approved = await api(holder, `/api/oauth/requests/${f.id}/approve`, 'POST');
  assert.equal(approved.status, 200, approved.text);
  const code = new URL(approved.json.redirect_to).searchParams.get('code')!;
  const tokens = await form(s, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: f.verifier, redirect_uri: REDIRECT, client_id: f.clientId, resource: f.resource });
  assert.equal(tokens.status, 200, tokens.text);
  return { access: tokens.json.access_token, refreshToken: tokens.json.refresh_token };
}

type Held = Flow & { access: string; refreshToken: string };
const held = async (holder: Person, tunnel: Tunnel): Promise<Held> => {
  const f = await startFlow(tunnel);
  return { ...f, ...(await tokensFor(holder, f)) };
};

async function assertActive(h: Held, what: string): Promise<void> {
  assert.equal((await introspect(h.access)).json.active, true, `${what}: active`);
}

/** The grant is gone: its access token introspects inactive and its refresh token answers invalid_grant. */
async function assertRevoked(h: Held, what: string): Promise<void> {
  assert.deepEqual((await introspect(h.access)).json, { active: false }, `${what}: the access token is inactive`);
  const r = await refresh(h, h.refreshToken);
  assert.equal(r.status, 400, `${what}: ${r.text}`);
  assert.equal(r.json.error, 'invalid_grant', `${what}: the refresh token gives nothing`);
}

const grantsOf = async (p: Pick<Person, 'token'>) => {
  const r = await s.request('/api/oauth/grants', { bearer: p.token });
  assert.equal(r.status, 200, r.text);
  return r.json.grants as { id: string }[];
};

/**
 * `p` holds two grants (one on its own tunnel, one as an allowed address on someone else's);
 * that owner holds one of its own, which no trust event of `p` touches.
 */
async function twoGrants(p: Person) {
  const own = await held(p, await createTunnel(s, p, { access: 'oauth' }));
  const other = await person();
  const tunnel = await createTunnel(s, other, { access: 'oauth', allowed_emails: [p.email] });
  const guest = await held(p, tunnel);
  const bystander = await held(other, tunnel);
  for (const h of [own, guest, bystander]) await assertActive(h, 'before');
  assert.equal((await grantsOf(p)).length, 2);
  return { own, guest, bystander, other };
}

test('an unverified account matching an exact or an @domain entry is not allowed: allowed:false, approve 403; once verified, it is', async () => {
  const owner = await person();
  const domain = `trust-${randomBytes(4).toString('hex')}.example.org`;
  const exact = await person({ verified: false });
  const byDomain = await person({ verified: false, email: `someone-${randomBytes(4).toString('hex')}@${domain}` });
  const tunnel = await createTunnel(s, owner, { access: 'oauth', allowed_emails: [exact.email, `@${domain}`] });
  for (const [p, what] of [[exact, 'exact entry'], [byDomain, '@domain entry']] as const) {
    const f = await startFlow(tunnel);
    const seen = await api(p, `/api/oauth/requests/${f.id}`);
    assert.equal(seen.status, 200, seen.text);
    assert.equal(seen.json.allowed, false, `${what}: unverified, not allowed`);
    const approve = await api(p, `/api/oauth/requests/${f.id}/approve`, 'POST');
    assertProblem(approve, 403, 'FORBIDDEN', what);
    assert.match(approve.json.detail, /verif/i, `${what}: the answer says to verify the address first`);
    // The address was the only reason: proven, the same request is allowed.
    await verify(s, p);
    assert.equal((await api(p, `/api/oauth/requests/${f.id}`)).json.allowed, true, `${what}: verified, allowed`);
    const granted = { ...f, ...(await tokensFor(p, f)) };
    await assertActive(granted, what);
    // Only while proven: an address no longer verified makes its tokens inactive and its refresh
    // fail. No API unproves an address: set here in the database, then the cached introspection
    // answers dropped as every change of an account drops them.
    await s.deps.db.account.update({ where: { id: p.id }, data: { emailVerified: false } });
    await invalidateIntrospections(s.deps);
    await assertRevoked(granted, `${what}, unverified again`);
  }
});

test('the first proof of an address revokes every OAuth grant the account held (an unverified owner on its own tunnel)', async () => {
  const owner = await person({ verified: false });
  const tunnel = await createTunnel(s, owner, { access: 'oauth' });
  const f = await startFlow(tunnel);
  assert.equal((await api(owner, `/api/oauth/requests/${f.id}`)).json.allowed, true, 'the owner is always allowed');
  const h = { ...f, ...(await tokensFor(owner, f)) };
  await assertActive(h, 'before the proof');
  assert.equal((await grantsOf(owner)).length, 1);

  const mail = await s.smtp.waitFor(owner.email, 'verify-email');
  const proof = await s.request('/auth/verify-email', { method: 'POST', body: { token: mail.token } });
  assert.equal(proof.status, 200, proof.text);
  await assertRevoked(h, 'after the first proof');
  assert.deepEqual(await grantsOf(owner), []);

  // A grant given once the address is proven is the account's to keep: a replayed proof revokes nothing.
  const after = await held(owner, tunnel);
  const replay = await s.request('/auth/verify-email', { method: 'POST', body: { token: mail.token } });
  assert.equal(replay.status, 200, replay.text);
  await assertActive(after, 'after a replayed proof');
});

test('sign out everywhere revokes every OAuth grant of the account, a rotated refresh token\'s grace included', async () => {
  const p = await person();
  const { own, guest, bystander } = await twoGrants(p);
  // A refresh within the last 60 s: its old token would get the same successor again (section 13a).
  const rotated = await refresh(own, own.refreshToken);
  assert.equal(rotated.status, 200, rotated.text);
  assert.equal((await api(p, '/auth/logout-all', 'POST')).status, 204);
  await assertRevoked(own, 'own tunnel');
  await assertRevoked(guest, 'someone else\'s tunnel');
  const successor = await refresh(own, rotated.json.refresh_token);
  assert.equal(successor.json.error, 'invalid_grant', 'the successor is gone too');
  assert.deepEqual(await grantsOf(await login(s, p)), []);
  await assertActive(bystander, 'another account\'s grant');
});

test('a password reset revokes every OAuth grant of the account', async () => {
  const p = await person();
  const { own, guest, bystander } = await twoGrants(p);
  assert.equal((await s.request('/auth/forgot-password', { method: 'POST', body: { email: p.email }, headers: p.headers })).status, 204);
  const mail = await s.smtp.waitFor(p.email, 'reset-password');
  const reset = await s.request('/auth/reset-password', { method: 'POST', body: { token: mail.token, new_password: 'a brand new passphrase' }, headers: p.headers });
  assert.equal(reset.status, 204, reset.text);
  await assertRevoked(own, 'own tunnel');
  await assertRevoked(guest, 'someone else\'s tunnel');
  assert.deepEqual(await grantsOf(await login(s, { email: p.email, password: 'a brand new passphrase' })), []);
  await assertActive(bystander, 'another account\'s grant');
});

test('a password change revokes every OAuth grant of the account', async () => {
  const p = await person();
  const { own, guest, bystander } = await twoGrants(p);
  const changed = await s.request('/auth/change-password', { method: 'POST', bearer: p.token, headers: p.headers, body: { current_password: PASSWORD, new_password: 'another fine passphrase' } });
  assert.equal(changed.status, 204, changed.text);
  await assertRevoked(own, 'own tunnel');
  await assertRevoked(guest, 'someone else\'s tunnel');
  assert.deepEqual(await grantsOf(await login(s, { email: p.email, password: 'another fine passphrase' })), []);
  await assertActive(bystander, 'another account\'s grant');
});

test('a request started with a session cookie is bound to that session: another session gets 404, it gets the request', async () => {
  const a = await person();
  const b = await person();
  const tunnel = await createTunnel(s, a, { access: 'oauth', allowed_emails: [b.email] });
  const f = await startFlow(tunnel, { cookie: `session=${a.token}` });
  assertProblem(await api(b, `/api/oauth/requests/${f.id}`), 404, 'NOT_FOUND', 'B opens A\'s request');
  assertProblem(await api(b, `/api/oauth/requests/${f.id}/approve`, 'POST'), 404, 'NOT_FOUND', 'B approves A\'s request');
  assertProblem(await api(b, `/api/oauth/requests/${f.id}/deny`, 'POST'), 404, 'NOT_FOUND', 'B denies A\'s request');
  // Another session of A's own account is another session too.
  const a2 = { ...a, ...(await login(s, a, a.headers)) };
  assertProblem(await api(a2, `/api/oauth/requests/${f.id}`), 404, 'NOT_FOUND', 'another session of A');
  const seen = await api(a, `/api/oauth/requests/${f.id}`);
  assert.equal(seen.status, 200, seen.text);
  await tokensFor(a, f);
});

test('a request started signed out is bound to the first session that opens it', async () => {
  const a = await person();
  const b = await person();
  const tunnel = await createTunnel(s, a, { access: 'oauth', allowed_emails: [b.email] });
  const f = await startFlow(tunnel);
  assert.equal((await api(b, `/api/oauth/requests/${f.id}`)).status, 200, 'B opens it first');
  assertProblem(await api(a, `/api/oauth/requests/${f.id}`), 404, 'NOT_FOUND', 'A after B');
  assertProblem(await api(a, `/api/oauth/requests/${f.id}/approve`, 'POST'), 404, 'NOT_FOUND', 'A approves after B');
  await tokensFor(b, f);
});

test('/oauth/authorize: 60 a minute per network, counted before any work; the 61st gets a 429 page; other networks go on', async () => {
  const owner = await person();
  const tunnel = await createTunnel(s, owner, { access: 'oauth' });
  const net = randomIp().split('.').slice(0, 3).join('.');
  // Invalid requests count too.
  for (let i = 0; i < 60; i++) {
    const r = await s.request('/oauth/authorize?client_id=nobody', { headers: fromIp(`${net}.${(i % 250) + 1}`) });
    assert.equal(r.status, 400, `request ${i + 1}: ${r.status} ${r.text.slice(0, 200)}`);
  }
  const client = await register(s);
  const { challenge } = pkce();
  const q = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 'st', resource: `https://${tunnel.host}/mcp` });
  const pending = () => s.deps.db.oAuthModel.count({ where: { kind: 'Interaction' } });
  const before = await pending();
  const limited = await s.request(`/oauth/authorize?${q}`, { headers: fromIp(`${net}.251`) });
  assert.equal(limited.status, 429, limited.text.slice(0, 200));
  assert.match(String(limited.headers['content-type']), /^text\/html/);
  assert.match(String(limited.headers['retry-after']), /^[1-9]\d*$/);
  assert.ok(Number(limited.headers['retry-after']) <= 60);
  assert.match(limited.text, /<html/i);
  assert.equal(await pending(), before, 'no pending request was stored');
  const elsewhere = await s.request(`/oauth/authorize?${q}`, { headers: fromIp(randomIp()) });
  assert.equal(elsewhere.status, 302, elsewhere.text.slice(0, 200));
});

test('preflights of the metadata documents and protocol endpoints allow what MCP clients send; the card paths keep theirs', async () => {
  const owner = await person();
  const tunnel = await createTunnel(s, owner, { access: 'oauth' });
  const ask = { origin: 'https://app.example', 'access-control-request-headers': 'mcp-protocol-version, authorization, content-type' };
  const cases: [string, string, string | undefined][] = [
    ['/.well-known/oauth-authorization-server', 'GET', undefined],
    ['/oauth/token', 'POST', undefined],
    ['/oauth/register', 'POST', undefined],
    ['/.well-known/oauth-protected-resource/mcp', 'GET', tunnel.host],
    ['/.well-known/oauth-protected-resource', 'GET', tunnel.host],
  ];
  for (const [path, method, host] of cases) {
    const r = await s.request(path, { method: 'OPTIONS', headers: { ...ask, 'access-control-request-method': method }, ...(host ? { host } : {}) });
    const what = `${host ?? 'api'} ${path}`;
    assert.ok(r.status === 204 || r.status === 200, `${what}: ${r.status} ${r.text}`);
    assert.equal(r.headers['access-control-allow-origin'], '*', what);
    const allowed = String(r.headers['access-control-allow-headers'] ?? '').split(',').map((h) => h.trim().toLowerCase());
    for (const h of ['mcp-protocol-version', 'authorization', 'content-type']) assert.ok(allowed.includes(h), `${what}: allows ${h} (${allowed.join(', ')})`);
    const methods = String(r.headers['access-control-allow-methods'] ?? '');
    assert.ok(methods.includes(method), `${what}: allows ${method} (${methods})`);
  }
  const cardPreflight = await s.request(CARD_PATH, { method: 'OPTIONS', host: tunnel.host, headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' } });
  assert.equal(cardPreflight.status, 204);
  assert.equal(cardPreflight.headers['access-control-allow-headers'], 'Content-Type, If-None-Match', 'API.md section 4');
  assert.equal(cardPreflight.headers['access-control-allow-origin'], '*');
});

test('approving needs a recent sign-in (403 REAUTH_REQUIRED); the request stays usable for the approve after re-authenticating', async () => {
  const p = await person();
  const tunnel = await createTunnel(s, p, { access: 'oauth' });
  const f = await startFlow(tunnel);
  assert.equal((await api(p, `/api/oauth/requests/${f.id}`)).status, 200);
  s.clock.advance(WINDOW_MS + 1000);
  assertProblem(await api(p, `/api/oauth/requests/${f.id}/approve`, 'POST'), 403, 'REAUTH_REQUIRED', 'approve after the window');
  assert.deepEqual(await grantsOf(p), [], 'nothing was granted');
  const seen = await api(p, `/api/oauth/requests/${f.id}`);
  assert.equal(seen.status, 200, `still pending: ${seen.text}`);
  const wrong = await s.request('/api/account/reauth', { method: 'POST', bearer: p.token, headers: p.headers, body: { password: 'not the password at all' } });
  assert.equal(wrong.status, 401, wrong.text);
  assertProblem(await api(p, `/api/oauth/requests/${f.id}/approve`, 'POST'), 403, 'REAUTH_REQUIRED', 'approve after a wrong password');
  const reauth = await s.request('/api/account/reauth', { method: 'POST', bearer: p.token, headers: p.headers, body: { password: PASSWORD } });
  assert.equal(reauth.status, 204, reauth.text);
  const h = { ...f, ...(await tokensFor(p, f)) };
  await assertActive(h, 'granted after re-authenticating');
  // A fresh sign-in is recent, too: another account signing in now approves at once.
  const fresh = await person();
  const other = await createTunnel(s, fresh, { access: 'oauth' });
  await tokensFor(fresh, await startFlow(other));
});
