// Credentials are decided before the body (API.md section 3: "Missing or wrong credentials on an
// authenticated path: 401"): every signed-in path of the server's own OpenAPI document, called
// without a credential, answers 401 UNAUTHENTICATED whatever its body (none, `{}`, malformed
// JSON, another media type), so a stranger learns nothing about a path's fields. A 401 to a
// request that presented a bearer token says the token is the reason (RFC 6750
// `error="invalid_token"`, API.md section 13a); one without any credential carries the bare
// `Bearer` challenge. The list of paths is read from /openapi.json (every operation whose security
// requires a credential), so a new route is walked without touching this file.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromIp, randomIp, useSignedIn } from '../../support/accounts.js';
import { gql } from '../../support/graphql.js';
import type { Reply, RequestOptions } from '../../support/http.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { restRoutes } from '../../../src/adapters/rest/table.js';
import { openApiPath } from '../../../src/adapters/rest/openapi.js';

const INTERNAL_TOKEN = 'credentials-first-internal-token-0123456789abcdef';
const s = useServer({ env: { TRUST_PROXY: 'true', INTERNAL_API_TOKEN: INTERNAL_TOKEN } });
const a = useSignedIn(s);
const ip = randomIp();

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the document is read as plain JSON

interface SignedInOperation {
  method: string;
  /** The document's path (`/api/tunnels/{id}`). */
  path: string;
  /** A concrete URL for it. */
  url: string;
  /** Reached with a session (cookie or bearer), as opposed to an operator's token. */
  session: boolean;
}

const SAMPLE_ID = '00000000-0000-4000-8000-000000000000';

/** Every operation of the API host whose security requires a credential (none is optional). */
async function signedInOperations(): Promise<SignedInOperation[]> {
  const reply = await s.request('/openapi.json');
  assert.equal(reply.status, 200);
  const doc = reply.json as Json;
  const out: SignedInOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    // Paths with servers of their own live on other hosts (cards, /status on ZONE).
    if ((item as Json).servers) continue;
    for (const [method, op] of Object.entries(item as Json)) {
      const security = ((op as Json).security ?? doc.security) as Json[];
      if (security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0)) continue;
      const session = security.some((requirement) => 'cookie' in requirement || 'sessionBearer' in requirement);
      out.push({ method: method.toUpperCase(), path, url: path.replace(/\{[^}]+\}/g, SAMPLE_ID), session });
    }
  }
  return out;
}

const send = (op: SignedInOperation, opts: RequestOptions): Promise<Reply> =>
  s.request(op.url, { method: op.method, ...opts, headers: { ...fromIp(ip), ...opts.headers } });

function assertUnauthenticated(r: Reply, op: SignedInOperation, what: string): void {
  assertProblem(r, 401, 'UNAUTHENTICATED', `${op.method} ${op.path} ${what}`);
}

test('the walk covers every signed-in route of the REST table', async () => {
  const ops = await signedInOperations();
  const walked = new Set(ops.map((op) => `${op.method} ${op.path}`));
  const signedIn = restRoutes.filter((r) => !r.public).map((r) => `${r.method} ${openApiPath(r.url)}`);
  assert.ok(signedIn.length > 30, `only ${signedIn.length} signed-in routes in the table`);
  assert.deepEqual(signedIn.filter((row) => !walked.has(row)), [], 'signed-in routes the document does not mark as such');
  assert.ok(walked.has('POST /api/account/mfa/recovery-codes'));
});

test('every signed-in path answers 401 UNAUTHENTICATED without credentials, with no body and with {}', async () => {
  for (const op of await signedInOperations()) {
    assertUnauthenticated(await send(op, {}), op, 'without a body');
    assertUnauthenticated(await send(op, { body: {} }), op, 'with {}');
  }
});

test('without credentials, a malformed or non-JSON body still answers 401, not 400 or 415 (the internal API too)', async () => {
  for (const op of await signedInOperations()) {
    assertUnauthenticated(await send(op, { body: '{"code": ' }), op, 'with malformed JSON');
    assertUnauthenticated(await send(op, { body: '[1,2]' }), op, 'with a JSON array');
    assertUnauthenticated(await send(op, { body: 'code=123456', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), op, 'with a form body');
    assertUnauthenticated(await send(op, { body: 'hello', headers: { 'content-type': 'text/plain' } }), op, 'with text/plain');
  }
});

test('an unknown session (cookie or bearer) also answers 401 before the body is looked at', async () => {
  for (const op of (await signedInOperations()).filter((o) => o.session)) {
    assertUnauthenticated(await send(op, { body: '{', bearer: 'not-a-session-token' }), op, 'with an unknown bearer and malformed JSON');
    assertUnauthenticated(await send(op, { body: {}, cookie: 'session=not-a-session-token' }), op, 'with an unknown cookie and {}');
  }
});

test('a signed-in caller still hears about the body: 400 for a missing field, 415 for another media type', async () => {
  const recovery = { method: 'POST', path: '/api/account/mfa/recovery-codes', url: '/api/account/mfa/recovery-codes', session: true };
  assertProblem(await send(recovery, { body: {}, bearer: a.token }), 400, 'BAD_REQUEST');
  assertProblem(await send(recovery, { body: '{"code": ', bearer: a.token }), 400, 'BAD_REQUEST');
  assertProblem(await send(recovery, { body: 'code=1', bearer: a.token, headers: { 'content-type': 'text/plain' } }), 415, 'BAD_REQUEST');
});

test('a 401 to a presented bearer token carries WWW-Authenticate: Bearer error="invalid_token" (RFC 6750)', async () => {
  for (const op of (await signedInOperations()).filter((o) => o.session)) {
    const what = `${op.method} ${op.path}`;
    const bearer = await send(op, { bearer: 'not-a-session-token' });
    assertUnauthenticated(bearer, op, 'with an unknown bearer');
    assert.equal(bearer.headers['www-authenticate'], 'Bearer error="invalid_token"', what);
    // No credential at all: the bare challenge (RFC 6750 section 3.1: no error code).
    const none = await send(op, { body: {} });
    assert.equal(none.headers['www-authenticate'], 'Bearer', what);
    // A browser's stale cookie: the same bare challenge, no token error (browsers prompt only
    // for Basic-like schemes, so the cookie flow is unchanged).
    const cookie = await send(op, { cookie: 'session=not-a-session-token' });
    assertUnauthenticated(cookie, op, 'with an unknown cookie');
    assert.equal(cookie.headers['www-authenticate'], 'Bearer', what);
  }
  // A revoked service token and a signed-out session token are presented-but-invalid too.
  const gone = await s.request('/api/account', { bearer: 'tsk_00000000000000000000000000000000000000' });
  assertProblem(gone, 401, 'UNAUTHENTICATED');
  assert.equal(gone.headers['www-authenticate'], 'Bearer error="invalid_token"');
});

const INVALID_TOKEN = 'The token is invalid or has expired. Sign in again, or use a valid token.';

test('the 401 says why: a presented token is invalid or expired; without a credential, sign in', async () => {
  const session = await s.request('/auth/login', { method: 'POST', body: { email: a.email, password: a.password }, headers: fromIp(randomIp()) });
  assert.equal(session.status, 200, session.text);
  assert.equal((await s.request('/auth/logout', { method: 'POST', bearer: session.json.token })).status, 204);
  for (const token of ['not-a-session-token', 'tsk_00000000000000000000000000000000000000', session.json.token as string]) {
    const r = await s.request('/api/account', { bearer: token });
    assertProblem(r, 401, 'UNAUTHENTICATED');
    assert.equal(r.json.detail, INVALID_TOKEN, token);
  }
  const none = await s.request('/api/account');
  assertProblem(none, 401, 'UNAUTHENTICATED');
  assert.equal(none.json.detail, 'Sign in to continue.');
  const staleCookie = await s.request('/api/account', { cookie: 'session=not-a-session-token' });
  assert.equal(staleCookie.json.detail, 'Sign in to continue.');
  // GraphQL says the same in the error's message.
  const mutation = await gql(s, 'mutation { logoutAll }', {}, { bearer: 'not-a-session-token' });
  assert.deepEqual([mutation.json.errors?.[0]?.extensions?.code, mutation.json.errors?.[0]?.message], ['UNAUTHENTICATED', INVALID_TOKEN]);
  const anonymous = await gql(s, 'mutation { logoutAll }');
  assert.deepEqual([anonymous.json.errors?.[0]?.extensions?.code, anonymous.json.errors?.[0]?.message], ['UNAUTHENTICATED', 'Sign in to continue.']);
});

test('answers that are not about the credential carry no token error', async () => {
  const me = await s.request('/api/account', { bearer: a.token });
  assert.equal(me.status, 200);
  assert.equal(me.headers['www-authenticate'], undefined);
  // A wrong password with a valid token is a 401 about the password, not the token.
  const wrong = await s.request('/auth/change-password', { method: 'POST', bearer: a.token, body: { current_password: 'not the password', new_password: 'another long password' }, headers: fromIp(randomIp()) });
  assertProblem(wrong, 401, 'UNAUTHENTICATED');
  assert.equal(wrong.headers['www-authenticate'], undefined);
  // A public path ignores a stale bearer token.
  const login = await s.request('/auth/login', { method: 'POST', bearer: 'not-a-session-token', body: { email: a.email, password: 'not the password' }, headers: fromIp(randomIp()) });
  assertProblem(login, 401, 'UNAUTHENTICATED');
  assert.equal(login.headers['www-authenticate'], undefined);
});

test('GraphQL: an unknown bearer token is answered as signed out, with WWW-Authenticate invalid_token', async () => {
  // The status stays what GraphQL answers a signed-out caller (200, `me: null`); the header tells
  // the client its token was not accepted (RFC 7235 section 4.1 allows it on any answer).
  const unknown = await gql(s, '{ me { email } }', {}, { bearer: 'not-a-session-token' });
  assert.equal(unknown.status, 200);
  assert.equal(unknown.json.data.me, null);
  assert.equal(unknown.headers['www-authenticate'], 'Bearer error="invalid_token"');
  const mutation = await gql(s, 'mutation { logoutAll }', {}, { bearer: 'not-a-session-token' });
  assert.equal(mutation.json.errors?.[0]?.extensions?.code, 'UNAUTHENTICATED');
  assert.equal(mutation.headers['www-authenticate'], 'Bearer error="invalid_token"');
  // A valid token, a cookie-only or anonymous request: no challenge.
  const valid = await gql(s, '{ me { email } }', {}, { bearer: a.token });
  assert.equal(valid.json.data.me.email, a.email);
  assert.equal(valid.headers['www-authenticate'], undefined);
  const anonymous = await gql(s, '{ me { email } }');
  assert.equal(anonymous.json.data.me, null);
  assert.equal(anonymous.headers['www-authenticate'], undefined);
  const staleCookie = await gql(s, '{ me { email } }', {}, { cookie: 'session=not-a-session-token' });
  assert.equal(staleCookie.json.data.me, null);
  assert.equal(staleCookie.headers['www-authenticate'], undefined);
});
