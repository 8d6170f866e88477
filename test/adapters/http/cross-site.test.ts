// Login CSRF and friends (API.md section 3): JSON endpoints take only application/json bodies
// (415 otherwise), a write without a bearer token from an Origin outside ALLOWED_ORIGINS is
// refused with 403 whether or not it carries a cookie, and over https every cookie carries the
// `__Host-` prefix.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASSWORD, signedIn, signup } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { startTestServer, uniqueEmail, useServer } from '../../support/server.js';

const DASHBOARD = 'https://dashboard.example.com';
const EVIL = 'https://evil.example.net';
const s = useServer({ env: { ALLOWED_ORIGINS: DASHBOARD } });

test('a text/plain or form body is refused with 415 "Unsupported Media Type" on REST and /graphql, before anything runs', async () => {
  const email = uniqueEmail('ctype');
  const body = JSON.stringify({ email, password: PASSWORD });
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    const refused = await s.request('/auth/signup', { method: 'POST', body, headers: { 'content-type': type } });
    assertProblem(refused, 415, 'BAD_REQUEST');
    assert.equal(refused.json.title, 'Unsupported Media Type', 'titled by its status, not its code');
    const q = JSON.stringify({ query: `mutation { signup(email: "${email}", password: "${PASSWORD}") { id } }` });
    assertProblem(await s.request('/graphql', { method: 'POST', body: q, headers: { 'content-type': type } }), 415, 'BAD_REQUEST');
  }
  assert.equal(await s.deps.db.account.count({ where: { emailNormalized: email.toLowerCase() } }), 0);
  // application/json with a charset, and +json types, are JSON.
  const ok = await s.request('/auth/signup', { method: 'POST', body, headers: { 'content-type': 'application/json; charset=utf-8' } });
  assert.equal(ok.status, 201, ok.text);
});

test('a cross-site login without any cookie is refused with 403: a form cannot sign the browser in as someone else', async () => {
  const a = await signup(s);
  const login = (headers: Record<string, string>) =>
    s.request('/auth/login', { method: 'POST', body: { email: a.email, password: a.password }, headers });
  const refused = await login({ origin: EVIL });
  assertProblem(refused, 403, 'FORBIDDEN');
  assert.equal(refused.headers['set-cookie'], undefined);
  const viaGraphql = await gql(s, 'mutation ($e: String!, $p: String!) { login(email: $e, password: $p) { token } }', { e: a.email, p: a.password }, {
    headers: { origin: EVIL },
  });
  assert.equal(viaGraphql.status, 403);
  // The dashboard's origin and clients that send no Origin (curl, SDKs) sign in.
  assert.equal((await login({ origin: DASHBOARD })).status, 200);
  assert.equal((await login({})).status, 200);
});

test('bearer requests stay exempt from the Origin check', async () => {
  const a = await signedIn(s);
  const r = await s.request('/auth/resend-verification', { method: 'POST', bearer: a.token, headers: { origin: EVIL } });
  assert.equal(r.status, 204, r.text);
});

test('over https the session and OAuth-binding cookies carry the __Host- prefix and are read under it', async () => {
  const https = await startTestServer({
    env: {
      BASE_URL: 'https://api.example.com',
      GITHUB_CLIENT_ID: 'id',
      GITHUB_CLIENT_SECRET: 'secret',
      GITHUB_AUTHORIZATION_URL: 'http://127.0.0.1:9/authorize',
    },
  });
  try {
    const a = await signup(https);
    const r = await https.request('/auth/login', { method: 'POST', body: { email: a.email, password: a.password } });
    assert.equal(r.status, 200, r.text);
    const cookie = (r.headers['set-cookie'] ?? []).find((c) => c.startsWith('__Host-session='));
    assert.ok(cookie, JSON.stringify(r.headers['set-cookie']));
    assert.match(cookie, /; Path=\//);
    assert.match(cookie, /; Secure/);
    assert.doesNotMatch(cookie, /Domain=/i);
    const value = /^__Host-session=([^;]+)/.exec(cookie)?.[1];
    const me = await https.request('/api/account', { cookie: `__Host-session=${value}` });
    assert.equal(me.status, 200, me.text);
    // The unprefixed name is not a credential on an https deployment (a sibling host could plant it).
    assert.equal((await https.request('/api/account', { cookie: `session=${value}` })).status, 401);
    const start = await https.request('/auth/oauth/github/start');
    assert.equal(start.status, 302);
    const binding = (start.headers['set-cookie'] ?? []).find((c) => c.startsWith('__Host-oauth_binding='));
    assert.ok(binding, JSON.stringify(start.headers['set-cookie']));
    assert.match(binding, /; Path=\/(;|$)/);
  } finally {
    await https.close();
  }
});

test('a GraphQL request may run at most one password operation, whatever the aliases', async () => {
  const a = await signup(s);
  const r = await gql(
    s,
    'mutation ($e: String!, $p: String!) { a: login(email: $e, password: $p) { token } b: login(email: $e, password: $p) { token } }',
    { e: a.email, p: 'wrong password 1' },
  );
  assert.equal(gqlCode(r), 'BAD_REQUEST');
  assert.equal(r.json.data, undefined);
  const viaFragment = await gql(
    s,
    'mutation ($e: String!, $p: String!) { ...Two } fragment Two on Mutation { x: login(email: $e, password: $p) { token } y: signup(email: $e, password: $p) { id } }',
    { e: a.email, p: a.password },
  );
  assert.equal(gqlCode(viaFragment), 'BAD_REQUEST');
  // Nothing ran: no session was issued.
  assert.equal(await s.deps.db.session.count({ where: { accountId: a.id } }), 0);
  const one = await gql(s, 'mutation ($e: String!, $p: String!) { login(email: $e, password: $p) { token } }', { e: a.email, p: a.password });
  assert.equal(gqlCode(one), null, one.text);
});
