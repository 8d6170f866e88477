// API.md section 13a, operator-registered clients: POST/GET/DELETE /internal/oauth/clients with
// INTERNAL_API_TOKEN. A confidential client gets a secret shown once and stored sealed, and
// authenticates at the token endpoint with client_secret_basic or client_secret_post (a wrong
// secret: 401 invalid_client with WWW-Authenticate); a public one gets none. Deleting a client
// revokes its grants.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromIp, randomIp, signedIn, type SignedIn } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { createTunnel } from '../../support/tunnels.js';
import { form, pkce, REDIRECT } from '../../support/oauth.js';

const ZONE = 'tunnels.example.test';
const INTERNAL = 'internal-test-token-0123456789abcdef';
const WEB_REDIRECT = 'https://ops.example.com/oauth/callback';
const s = useServer(() => ({ env: { ZONE, TRUST_PROXY: 'true', INTERNAL_API_TOKEN: INTERNAL } }));

type Person = SignedIn & { headers: Record<string, string> };
async function person(): Promise<Person> {
  const headers = fromIp(randomIp());
  return { ...(await signedIn(s, { headers, verified: true })), headers };
}

const operator = (method: string, path: string, body?: unknown, bearer: string | null = INTERNAL) =>
  s.request(path, { method, ...(bearer ? { bearer } : {}), ...(body === undefined ? {} : { body }) });
const introspect = (token: string) => form(s, '/oauth/introspect', { token }, { authorization: `Bearer ${INTERNAL}` });
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

interface Registered {
  client_id: string;
  client_name: string;
  client_secret?: string;
  redirect: string;
}

async function registerClient(body: Record<string, unknown>): Promise<Registered> {
  const r = await operator('POST', '/internal/oauth/clients', body);
  assert.equal(r.status, 201, r.text);
  assert.equal(typeof r.json.client_id, 'string');
  return { ...r.json, redirect: (body.redirect_uris as string[])[0]! };
}

const confidentialClient = () => registerClient({ client_name: 'Ops Portal', redirect_uris: [WEB_REDIRECT], application_type: 'web', confidential: true });

/** The owner of a fresh oauth tunnel approves `client`'s request: the code, with what its exchange needs. */
async function codeFor(owner: Person, client: Registered, tunnel?: { host: string }) {
  const t = tunnel ?? (await createTunnel(s, owner, { access: 'oauth' }));
  const resource = `https://${t.host}/mcp`;
  const { verifier, challenge } = pkce();
  const q = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect, code_challenge: challenge, code_challenge_method: 'S256', state: 'op', resource });
  const r = await s.request(`/oauth/authorize?${q}`, { headers: fromIp(randomIp()) });
  assert.equal(r.status, 302, `${r.status} ${r.text}`);
  const id = new URL(String(r.headers.location)).searchParams.get('request')!;
  const seen = await s.request(`/api/oauth/requests/${id}`, { bearer: owner.token, headers: owner.headers });
  assert.equal(seen.status, 200, seen.text);
  assert.equal(seen.json.client_name, client.client_name, 'the consent page names it');
  const approved = await s.request(`/api/oauth/requests/${id}/approve`, { method: 'POST', bearer: owner.token, headers: owner.headers });
  assert.equal(approved.status, 200, approved.text);
  const back = new URL(approved.json.redirect_to);
  assert.equal(`${back.origin}${back.pathname}`, client.redirect);
  return { code: back.searchParams.get('code')!, verifier, resource, tunnel: t };
}

const exchange = (c: Awaited<ReturnType<typeof codeFor>>, client: Registered, extra: Record<string, string> = {}, headers: Record<string, string> = {}) =>
  form(s, '/oauth/token', { grant_type: 'authorization_code', code: c.code, code_verifier: c.verifier, redirect_uri: client.redirect, resource: c.resource, ...extra }, headers);

test('the operator only: 401 without the internal token, whatever the body', async () => {
  const good = { client_name: 'Ops Portal', redirect_uris: [WEB_REDIRECT], confidential: true };
  for (const bearer of [null, 'wrong-token-wrong-token-wrong-token-0']) {
    const what = bearer ? 'a wrong token' : 'no token';
    assertProblem(await operator('POST', '/internal/oauth/clients', good, bearer), 401, 'UNAUTHENTICATED', `POST with ${what}`);
    const malformed = await s.request('/internal/oauth/clients', { method: 'POST', body: '{"client_name": ', headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) } });
    assert.equal(malformed.status, 401, `malformed JSON with ${what}: ${malformed.text}`);
    assert.equal((await operator('POST', '/internal/oauth/clients', 'not json at all', bearer)).status, 401, `a text body with ${what}`);
    assertProblem(await operator('GET', '/internal/oauth/clients', undefined, bearer), 401, 'UNAUTHENTICATED', `GET with ${what}`);
    assertProblem(await operator('DELETE', '/internal/oauth/clients/op_whatever', undefined, bearer), 401, 'UNAUTHENTICATED', `DELETE with ${what}`);
  }
  // A session of an account is not the operator either.
  const p = await person();
  assert.equal((await operator('POST', '/internal/oauth/clients', good, p.token)).status, 401);
});

test('bad input: 400', async () => {
  const cases: [string, Record<string, unknown>][] = [
    ['no redirect_uris', { client_name: 'Ops', confidential: true }],
    ['empty redirect_uris', { client_name: 'Ops', redirect_uris: [] }],
    ['a web client on plain http off loopback', { client_name: 'Ops', application_type: 'web', redirect_uris: ['http://ops.example.com/cb'] }],
    ['web by default, on plain http off loopback', { client_name: 'Ops', redirect_uris: ['http://ops.example.com/cb'] }],
    ['an unknown application_type', { client_name: 'Ops', application_type: 'service', redirect_uris: [WEB_REDIRECT] }],
    ['no client_name', { redirect_uris: [WEB_REDIRECT] }],
    ['confidential not a boolean', { client_name: 'Ops', redirect_uris: [WEB_REDIRECT], confidential: 'yes' }],
    ['a redirect URI that is no URI', { client_name: 'Ops', redirect_uris: ['not a uri'] }],
  ];
  const before = await operator('GET', '/internal/oauth/clients');
  for (const [what, body] of cases) assertProblem(await operator('POST', '/internal/oauth/clients', body), 400, 'BAD_REQUEST', what);
  assert.equal((await operator('POST', '/internal/oauth/clients', [1, 2])).status, 400, 'not an object');
  const after = await operator('GET', '/internal/oauth/clients');
  assert.equal(after.json.clients.length, before.json.clients.length, 'nothing was registered');
});

test('a confidential client: its secret once, stored sealed, never listed; client_secret_basic and client_secret_post work, a wrong secret is 401 invalid_client', async () => {
  const r = await operator('POST', '/internal/oauth/clients', { client_name: 'Ops Portal', redirect_uris: [WEB_REDIRECT], application_type: 'web', confidential: true });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.headers['cache-control'], 'no-store');
  const client: Registered = { ...r.json, redirect: WEB_REDIRECT };
  const secret = client.client_secret!;
  assert.equal(typeof secret, 'string');
  assert.ok(secret.length >= 32, 'a long secret');
  assert.equal(r.json.confidential, true);

  const row = await s.deps.db.oAuthModel.findUniqueOrThrow({ where: { kind_id: { kind: 'Client', id: client.client_id } } });
  assert.ok(!JSON.stringify(row).includes(secret), 'the secret is not stored in the clear');

  const list = await operator('GET', '/internal/oauth/clients');
  assert.equal(list.status, 200, list.text);
  assert.ok(!list.text.includes(secret), 'no secret in the list');
  const listed = list.json.clients.find((c: { client_id: string }) => c.client_id === client.client_id);
  assert.ok(listed, 'listed');
  assert.equal('client_secret' in listed, false);
  assert.equal(listed.client_name, 'Ops Portal');
  assert.deepEqual(listed.redirect_uris, [WEB_REDIRECT]);
  assert.equal(listed.application_type, 'web');
  assert.equal(listed.confidential, true);

  const meta = (await s.request('/.well-known/oauth-authorization-server')).json;
  for (const m of ['client_secret_basic', 'client_secret_post']) assert.ok(meta.token_endpoint_auth_methods_supported.includes(m), `metadata lists ${m}`);

  const owner = await person();
  // client_secret_basic.
  const first = await codeFor(owner, client);
  const viaBasic = await exchange(first, client, {}, { authorization: basic(client.client_id, secret) });
  assert.equal(viaBasic.status, 200, viaBasic.text);
  assert.ok(viaBasic.json.access_token);
  assert.equal((await introspect(viaBasic.json.access_token)).json.client_id, client.client_id);
  // client_secret_post.
  const second = await codeFor(owner, client, first.tunnel);
  const viaPost = await exchange(second, client, { client_id: client.client_id, client_secret: secret });
  assert.equal(viaPost.status, 200, viaPost.text);
  assert.equal((await introspect(viaPost.json.access_token)).json.active, true);
  // Its refresh token too needs the secret.
  const refreshed = await form(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: viaPost.json.refresh_token }, { authorization: basic(client.client_id, secret) });
  assert.equal(refreshed.status, 200, refreshed.text);

  // A wrong secret, either way; no secret at all.
  const third = await codeFor(owner, client, first.tunnel);
  const wrongBasic = await exchange(third, client, {}, { authorization: basic(client.client_id, `${secret}x`) });
  assert.equal(wrongBasic.status, 401, wrongBasic.text);
  assert.equal(wrongBasic.json.error, 'invalid_client');
  assert.ok(wrongBasic.headers['www-authenticate'], 'WWW-Authenticate on a failed Basic');
  const wrongPost = await exchange(third, client, { client_id: client.client_id, client_secret: 'not-the-secret' });
  assert.equal(wrongPost.status, 401, wrongPost.text);
  assert.equal(wrongPost.json.error, 'invalid_client');
  assert.ok(wrongPost.headers['www-authenticate'], 'WWW-Authenticate on a failed client_secret_post');
  const none = await exchange(third, client, { client_id: client.client_id });
  assert.equal(none.json.error, 'invalid_client', `no secret: ${none.text}`);
  assert.equal(none.json.access_token, undefined);
});

test('a public client: no secret; its code exchange works without one', async () => {
  const r = await operator('POST', '/internal/oauth/clients', { client_name: 'Ops Desktop', redirect_uris: [REDIRECT], application_type: 'native', confidential: false });
  assert.equal(r.status, 201, r.text);
  assert.equal('client_secret' in r.json, false);
  assert.equal(r.json.confidential, false);
  const client: Registered = { ...r.json, redirect: REDIRECT };
  const listed = (await operator('GET', '/internal/oauth/clients')).json.clients.find((c: { client_id: string }) => c.client_id === client.client_id);
  assert.equal(listed.confidential, false);
  const owner = await person();
  const tokens = await exchange(await codeFor(owner, client), client, { client_id: client.client_id });
  assert.equal(tokens.status, 200, tokens.text);
  assert.equal((await introspect(tokens.json.access_token)).json.active, true);
});

test('deleting a client revokes its grants: 204, then its tokens are inactive and its refresh fails; again: 404', async () => {
  const client = await confidentialClient();
  const secret = client.client_secret!;
  const holder = await person();
  const issued = await exchange(await codeFor(holder, client), client, {}, { authorization: basic(client.client_id, secret) });
  assert.equal(issued.status, 200, issued.text);
  assert.equal((await introspect(issued.json.access_token)).json.active, true);
  const grants = () => s.request('/api/oauth/grants', { bearer: holder.token }).then((g) => g.json.grants as { client_id: string }[]);
  assert.deepEqual((await grants()).map((g) => g.client_id), [client.client_id]);
  // Another client's grant of the same holder stays.
  const other = await confidentialClient();
  const kept = await exchange(await codeFor(holder, other), other, {}, { authorization: basic(other.client_id, other.client_secret!) });
  assert.equal(kept.status, 200, kept.text);
  // Asked just before (a cached answer, if any, is the one to drop).
  assert.equal((await introspect(issued.json.access_token)).json.active, true);
  assert.equal((await introspect(kept.json.access_token)).json.active, true);

  assert.equal((await operator('DELETE', `/internal/oauth/clients/${client.client_id}`)).status, 204);
  assert.deepEqual((await introspect(issued.json.access_token)).json, { active: false }, 'its access token is inactive');
  const refresh = await form(s, '/oauth/token', { grant_type: 'refresh_token', refresh_token: issued.json.refresh_token }, { authorization: basic(client.client_id, secret) });
  assert.ok(refresh.status === 400 || refresh.status === 401, refresh.text);
  assert.equal(refresh.json.access_token, undefined, 'its refresh gives nothing');
  const stored = await s.deps.db.oAuthModel.findMany({ where: { kind: 'Grant' } });
  assert.equal(stored.filter((g) => (g.payload as { clientId?: string }).clientId === client.client_id).length, 0, 'its grants are gone');
  assert.deepEqual((await grants()).map((g) => g.client_id), [other.client_id]);
  assert.equal((await introspect(kept.json.access_token)).json.active, true, 'another client\'s grant stays');
  const listed = (await operator('GET', '/internal/oauth/clients')).json.clients.map((c: { client_id: string }) => c.client_id);
  assert.ok(!listed.includes(client.client_id) && listed.includes(other.client_id));

  const { challenge } = pkce();
  const q = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect, code_challenge: challenge, code_challenge_method: 'S256', state: 'gone', resource: `https://${(await createTunnel(s, holder, { access: 'oauth' })).host}/mcp` });
  const gone = await s.request(`/oauth/authorize?${q}`, { headers: fromIp(randomIp()) });
  assert.equal(gone.status, 400, `a deleted client cannot start again: ${gone.status} ${gone.text.slice(0, 200)}`);
  assertProblem(await operator('DELETE', `/internal/oauth/clients/${client.client_id}`), 404, 'NOT_FOUND', 'a second DELETE');
  assertProblem(await operator('DELETE', '/internal/oauth/clients/op_never-registered'), 404, 'NOT_FOUND', 'an unknown id');
  // A dynamically registered client is not the operator's to delete here.
  const dynamic = await s.request('/oauth/register', { method: 'POST', headers: fromIp(randomIp()), body: { client_name: 'Self-registered', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' } });
  assert.equal(dynamic.status, 201, dynamic.text);
  assertProblem(await operator('DELETE', `/internal/oauth/clients/${encodeURIComponent(dynamic.json.client_id)}`), 404, 'NOT_FOUND', 'a dynamic client');
  assert.equal(await s.deps.db.oAuthModel.count({ where: { kind: 'Client', id: dynamic.json.client_id } }), 1);
});
