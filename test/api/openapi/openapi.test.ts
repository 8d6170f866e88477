// API.md section 16: GET /openapi.json, printed from the route table. It is OpenAPI 3.1 (checked
// against the official schema), it holds every REST row of sections 4, 7, 7a, 8, 10, 12, 13 and
// 15, every path the server registers on the API host is in it, security follows the scopes the
// server enforces, and the contract check every API test goes through catches what it is for.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { signedIn } from '../../support/accounts.js';
import { checkAgainstContract, compileContract } from '../../support/openapi-contract.js';
import { startTestServer, useServer } from '../../support/server.js';
import type { Reply } from '../../support/http.js';

const s = useServer({ env: { INTERNAL_API_TOKEN: 'openapi-test-internal-token-0123456789abcdef' } });

/** The REST rows of API.md sections 4, 7, 7a, 8, 10, 12 (its /api paths), 13 (its /api paths) and 15. */
const API_MD_ROWS = [
  'POST /auth/signup', 'POST /auth/login', 'POST /auth/verify-email', 'POST /auth/resend-verification',
  'POST /auth/change-email', 'POST /auth/confirm-email-change', 'POST /auth/change-password',
  'POST /auth/forgot-password', 'POST /auth/reset-password', 'GET /auth/oauth/{provider}/start',
  'GET /auth/oauth/{provider}/callback', 'POST /auth/oauth/confirm-link', 'GET /api/account',
  'PATCH /api/account/slug', 'DELETE /api/account/sso/{provider}', 'GET /api/sessions', 'DELETE /api/sessions/{id}',
  'POST /auth/logout', 'POST /auth/logout-all', 'DELETE /api/account', 'POST /api/tunnels', 'GET /api/tunnels',
  'GET /api/tunnels/{id}', 'PATCH /api/tunnels/{id}', 'DELETE /api/tunnels/{id}', 'PUT /internal/tunnels/{id}/tools',
  'GET /healthz', 'GET /metrics', 'GET /.well-known/mcp/server-card.json', 'GET /.well-known/mcp-server-card.json', 'GET /status',
  // 7 and 7a
  'POST /api/account/mfa/totp/setup', 'POST /api/account/mfa/totp/confirm', 'DELETE /api/account/mfa/totp',
  'POST /api/account/mfa/recovery-codes', 'POST /auth/mfa/verify', 'POST /api/account/reauth',
  // 8
  'POST /api/account/passkeys/options', 'POST /api/account/passkeys', 'GET /api/account/passkeys',
  'PATCH /api/account/passkeys/{id}', 'DELETE /api/account/passkeys/{id}', 'POST /auth/passkey/options', 'POST /auth/passkey/login',
  // 10
  'GET /api/account/activity',
  // 12
  'POST /api/tokens', 'GET /api/tokens', 'DELETE /api/tokens/{id}', 'POST /api/device/lookup', 'POST /api/device/approve', 'POST /api/device/deny',
  // 13
  'GET /api/oauth/requests/{id}', 'POST /api/oauth/requests/{id}/approve', 'POST /api/oauth/requests/{id}/deny',
  'GET /api/oauth/grants', 'DELETE /api/oauth/grants/{id}',
  // 15
  'POST /api/webhooks', 'GET /api/webhooks', 'PATCH /api/webhooks/{id}', 'DELETE /api/webhooks/{id}',
  'POST /api/webhooks/{id}/rotate-secret', 'POST /api/webhooks/{id}/test', 'GET /api/webhooks/{id}/deliveries',
  'POST /api/webhooks/{id}/deliveries/{deliveryId}/retry',
];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the document is read as plain JSON

async function documentOf(): Promise<{ reply: Reply; doc: Json }> {
  const reply = await s.request('/openapi.json');
  assert.equal(reply.status, 200);
  return { reply, doc: reply.json };
}

const operations = (doc: Json): Map<string, Json> =>
  new Map(
    Object.entries(doc.paths as Json).flatMap(([path, ops]) =>
      Object.entries(ops as Json)
        .filter(([m]) => m !== 'servers')
        .map(([m, op]) => [`${m.toUpperCase()} ${path}`, op as Json]),
    ),
  );

test('GET /openapi.json is OpenAPI 3.1, valid against the official schema, public and cacheable', async () => {
  const { reply, doc } = await documentOf();
  assert.match(String(reply.headers['content-type']), /^application\/json/);
  assert.equal(reply.headers['access-control-allow-origin'], '*');
  assert.equal(doc.openapi, '3.1.0');
  assert.deepEqual(doc.servers, [{ url: s.deps.config.baseUrl }]);
  const result = await new Validator().validate(structuredClone(doc));
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1));
  const etag = reply.headers.etag;
  assert.match(String(etag), /^"[A-Za-z0-9_-]{27}"$/);
  const again = await s.request('/openapi.json', { headers: { 'if-none-match': String(etag) } });
  assert.equal(again.status, 304);
  assert.equal(again.text, '');
});

test("every REST row of API.md's sections is in the document, with a summary and each declared answer", async () => {
  const { doc } = await documentOf();
  const ops = operations(doc);
  const missing = API_MD_ROWS.filter((row) => !ops.has(row));
  assert.deepEqual(missing, []);
  const ids = new Set<string>();
  for (const [key, op] of ops) {
    assert.ok(op.summary, `${key} has a summary`);
    assert.ok(!ids.has(op.operationId), `${key}: operationId ${op.operationId} is unique`);
    ids.add(op.operationId);
    for (const [status, answer] of Object.entries(op.responses as Json)) {
      // Pages answer pages (the status page, the provider callback, the subscription links); the API answers problem+json.
      const pages = ['GET /status', 'GET /auth/oauth/{provider}/callback', 'GET /status/subscribe/confirm', 'POST /status/subscribe/confirm'];
      if (/^[45]/.test(status) && !pages.includes(key) && answer.content) {
        assert.deepEqual(Object.keys(answer.content), ['application/problem+json'], `${key} ${status} is problem+json`);
      }
    }
  }
  // Rows of the tables, as API.md states them.
  assert.ok(ops.get('POST /auth/login')!.responses['429'].headers['Retry-After']);
  assert.ok(ops.get('POST /auth/login')!.responses['200'].headers['Set-Cookie']);
  assert.ok(ops.get('POST /api/webhooks')!.responses['409']);
  assert.match(ops.get('POST /api/webhooks')!.responses['403'].description, /REAUTH_REQUIRED/);
  assert.deepEqual(Object.keys(ops.get('DELETE /api/tunnels/{id}')!.responses).sort(), ['204', '400', '401', '403', '404', '413', '414', '415', '5XX']);
  const created = doc.components.schemas.CreatedWebhook;
  assert.ok(created.required.includes('secret'));
  assert.equal(doc.components.schemas.Webhook.properties.secret, undefined, 'the secret is only in the creation answer');
  // Request bodies come from the operation's variables: required fields and types.
  const body = ops.get('POST /api/tokens')!.requestBody.content['application/json'].schema;
  assert.deepEqual(body.required.sort(), ['name', 'scopes']);
  assert.deepEqual(body.properties.scopes.type, 'array');
  assert.deepEqual(body.properties.expires_in_days.type, ['integer', 'null']);
  assert.equal(ops.get('POST /auth/forgot-password')!.requestBody.content['application/json'].schema.required, undefined, 'forgot-password answers any JSON object');
  const limit = ops.get('GET /api/webhooks/{id}/deliveries')!.parameters.find((p: Json) => p.name === 'limit');
  assert.deepEqual(limit, { name: 'limit', in: 'query', required: false, description: '1–100, default 50.', schema: { type: 'integer' } });
});

test('every path the server registers on the API host is in the document, and nothing else', async () => {
  const { doc } = await documentOf();
  const documented = new Set(operations(doc).keys());
  const served = new Set(
    s.app.routes
      .filter((r) => / \/(api|auth|internal)\/|^GET \/(readyz|metrics|openapi\.json|problems|problems\/:slug)$/.test(r))
      .filter((r) => !r.startsWith('HEAD '))
      .map((r) => r.replace(/:([A-Za-z0-9_]+)/g, '{$1}')),
  );
  // /healthz never reaches Fastify (server.ts answers it raw on every host).
  // The card paths and /status are raw handlers of the tunnel hosts and ZONE, with servers of their own.
  const expectedExtra = new Set(['GET /healthz', 'GET /.well-known/mcp/server-card.json', 'GET /.well-known/mcp-server-card.json', 'GET /status', 'GET /status/incidents', 'GET /status/feed.atom', 'GET /api/v2/summary.json',
    'POST /status/subscribe', 'GET /status/subscribe/confirm', 'POST /status/subscribe/confirm', 'GET /status/unsubscribe', 'POST /status/unsubscribe']);
  assert.deepEqual([...served].filter((r) => !documented.has(r)), [], 'served but not documented');
  assert.deepEqual([...documented].filter((r) => !served.has(r) && !expectedExtra.has(r)), [], 'documented but not served');
});

test('security: public paths need nothing; a service token is listed only with the scopes that reach a path', async () => {
  const { doc } = await documentOf();
  const ops = operations(doc);
  assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['cookie', 'internalToken', 'metricsToken', 'serviceToken', 'sessionBearer']);
  assert.deepEqual(doc.components.securitySchemes.cookie, { type: 'apiKey', in: 'cookie', name: 'session', description: doc.components.securitySchemes.cookie.description });
  for (const row of ['POST /auth/signup', 'POST /auth/login', 'POST /auth/passkey/login', 'POST /auth/mfa/verify', 'POST /auth/verify-email']) {
    assert.deepEqual(ops.get(row)!.security, [], row);
  }
  const tokenScopes = (row: string) => (ops.get(row)!.security as Json[]).filter((r) => r.serviceToken).map((r) => r.serviceToken[0]);
  assert.deepEqual(tokenScopes('GET /api/tunnels'), ['tunnels:read', 'tunnels:write']);
  assert.deepEqual(tokenScopes('POST /api/tunnels'), ['tunnels:write']);
  assert.deepEqual(tokenScopes('GET /api/account'), ['account:read']);
  for (const row of ['POST /api/webhooks', 'GET /api/sessions', 'POST /api/tokens', 'DELETE /api/account', 'GET /api/account/activity']) {
    assert.deepEqual(tokenScopes(row), [], `${row}: no service token`);
    assert.deepEqual(ops.get(row)!.security, [{ cookie: [] }, { sessionBearer: [] }], row);
  }
  // What the document says is what the server does: a tunnels:read token reads tunnels and nothing else.
  const a = await signedIn(s, { verified: true });
  const token = await s.request('/api/tokens', { method: 'POST', bearer: a.token, body: { name: 'ci', scopes: ['tunnels:read'] } });
  assert.equal(token.status, 201, token.text);
  assert.equal((await s.request('/api/tunnels', { bearer: token.json.token })).status, 200);
  assert.equal((await s.request('/api/webhooks', { bearer: token.json.token })).status, 403);
  assert.equal((await s.request('/api/tunnels', { method: 'POST', bearer: token.json.token, body: { subdomain: 'nope' } })).status, 403);
});

test('the contract check fails an undeclared status, an extra or missing field, a wrong type and a wrong media type', async () => {
  const { doc } = await documentOf();
  const contract = compileContract(doc);
  const reply = (status: number, json: unknown, type = 'application/json'): Reply => ({ status, headers: { 'content-type': type }, text: json === undefined ? '' : JSON.stringify(json), json });
  const tunnel = { id: 't1', subdomain: 'a', host: 'a--b.example.net', url: 'https://a--b.example.net/mcp', custom_domain: null, discoverable: false, pinned_tools: [], access: 'public', allowed_emails: [], created_at: '2026-11-27T00:00:00.000Z', owner: { type: 'account', slug: 'b' } };
  const check = (r: Reply, path = '/api/tunnels/t1', method = 'GET') => () => checkAgainstContract(contract, path, { method }, r);
  assert.doesNotThrow(check(reply(200, tunnel)));
  assert.throws(check(reply(200, { ...tunnel, secret: 'x' })), /does not match/);
  const { host: _h, ...withoutHost } = tunnel;
  assert.throws(check(reply(200, withoutHost)), /does not match/);
  assert.throws(check(reply(200, { ...tunnel, discoverable: 'yes' })), /does not match/);
  assert.throws(check(reply(200, { ...tunnel, created_at: 'yesterday' })), /does not match/);
  assert.throws(check(reply(200, { ...tunnel, access: 'private' })), /does not match/);
  assert.throws(check(reply(409, { type: 'https://api.example/problems/slug-taken', title: 'Conflict', status: 409, detail: 'x', code: 'CONFLICT' }, 'application/problem+json')), /does not declare/);
  assert.throws(check(reply(404, { type: 'https://api.example/problems/not-found', title: 'Not Found', status: 404, detail: 'x', code: 'NOT_FOUND' })), /application\/json/);
  assert.throws(check(reply(404, { type: 'https://api.example/problems/not-found', title: 'Not Found', status: 404, detail: 'x', code: 'MISSING' }, 'application/problem+json')), /does not match/);
  assert.doesNotThrow(check(reply(503, { type: 'https://api.example/problems/internal-error', title: 'Service Unavailable', status: 503, detail: 'x', code: 'UNAVAILABLE' }, 'application/problem+json')));
  // A problem's type is one of the catalog's: never about:blank, never an unknown slug.
  assert.throws(check(reply(503, { type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'x', code: 'UNAVAILABLE' }, 'application/problem+json')), /does not match/);
  assert.throws(check(reply(503, { type: 'https://api.example/problems/no-such-slug', title: 'Service Unavailable', status: 503, detail: 'x', code: 'UNAVAILABLE' }, 'application/problem+json')), /does not match/);
  // A problem names the input it is about in `errors`, in the one shape the document gives.
  const invalid = { type: 'https://api.example/problems/invalid-subdomain', title: 'Bad Request', status: 400, detail: 'x', code: 'BAD_REQUEST' };
  const patch = (r: Reply) => check(r, '/api/tunnels/t1', 'PATCH');
  assert.doesNotThrow(patch(reply(400, { ...invalid, errors: [{ pointer: '/subdomain', detail: 'x' }] }, 'application/problem+json')));
  assert.throws(patch(reply(400, { ...invalid, errors: [{ field: 'subdomain', detail: 'x' }] }, 'application/problem+json')), /does not match/);
  assert.throws(patch(reply(400, { ...invalid, errors: [{ pointer: '/subdomain' }] }, 'application/problem+json')), /does not match/);
  assert.throws(patch(reply(400, { ...invalid, field: 'subdomain' }, 'application/problem+json')), /does not match/);
  assert.throws(check(reply(204, { unexpected: true }), '/api/tunnels/t1', 'DELETE'), /declares none/);
  // Requests the document does not describe are left alone.
  assert.doesNotThrow(check(reply(200, { anything: 1 }), '/graphql', 'POST'));
  assert.doesNotThrow(() => checkAgainstContract(contract, '/api/tunnels/t1', { host: 'a--b.localhost' }, reply(418, null)));
  // The status page's paths on ZONE are checked too (a tunnel host's card is not).
  const zone = new URL(doc.paths['/status'].servers[0].url).hostname;
  const incidents = (json: unknown) => () => checkAgainstContract(contract, '/status/incidents', { host: zone }, reply(200, json));
  assert.doesNotThrow(incidents({ incidents: [] }));
  assert.throws(incidents({ incidents: [{ id: 'i1' }] }), /does not match/);
  assert.throws(incidents({ incidents: [], extra: true }), /does not match/);
  // A JSON body the server took (2xx) must be one the document accepts; a refused one is not looked at.
  const client = { client_id: 'c1', client_name: 'CI', redirect_uris: ['https://ci.example/cb'], application_type: 'web', confidential: false, created_at: '2026-11-27T00:00:00.000Z' };
  const register = (body: unknown, status: number, json: unknown) => () =>
    checkAgainstContract(contract, '/internal/oauth/clients', { method: 'POST', body }, reply(status, json, status < 300 ? 'application/json' : 'application/problem+json'));
  assert.doesNotThrow(register({ client_name: 'CI', redirect_uris: ['https://ci.example/cb'] }, 201, client));
  assert.throws(register({ client_name: 'CI', redirect_uris: [] }, 201, client), /a body the document refuses/);
  assert.throws(register({ client_name: 5, redirect_uris: ['https://ci.example/cb'] }, 201, client), /a body the document refuses/);
  assert.doesNotThrow(register({ client_name: 5 }, 400, { type: 'https://api.example/problems/invalid-client-metadata', title: 'Bad Request', status: 400, detail: 'x', code: 'BAD_REQUEST' }));
});

test("the plain-HTTP paths are printed from their handlers' schemas: requests inline, shared answers as components", async () => {
  const { doc } = await documentOf();
  const ops = operations(doc);
  const registration = ops.get('POST /internal/oauth/clients')!.requestBody.content['application/json'].schema;
  assert.deepEqual(registration.required, ['client_name', 'redirect_uris']);
  assert.deepEqual(registration.properties.redirect_uris, { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 10 });
  assert.deepEqual(ops.get('POST /internal/status/incidents')!.responses['201'].content['application/json'].schema, { $ref: '#/components/schemas/Incident' });
  assert.deepEqual(ops.get('GET /status/incidents')!.responses['200'].content['application/json'].schema.properties.incidents.items, { $ref: '#/components/schemas/Incident' });
  assert.equal(doc.components.schemas.Incident.additionalProperties, false);
  assert.deepEqual(doc.components.schemas.Maintenance.required.sort(), ['active', 'components', 'ends_at', 'id', 'message', 'starts_at', 'title']);
  // Only named shapes are components: each raw answer is printed in place.
  assert.deepEqual(Object.keys(doc.components.schemas).filter((id) => id.startsWith('Raw')), []);
  assert.deepEqual(ops.get('GET /readyz')!.responses['200'].content['application/json'].schema.required, ['status', 'checks']);
  const intent = ops.get('GET /auth/oauth/{provider}/start')!.parameters.find((p: Json) => p.name === 'intent');
  assert.deepEqual(intent.schema, { type: 'string', enum: ['link', 'reauth'] });
  assert.deepEqual(doc.paths['/api/v2/summary.json'].servers, doc.paths['/status'].servers);
});

test('GET /docs: the reference page under its CSP in development; off in production unless API_DOCS=true', async () => {
  const page = await s.request('/docs');
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-security-policy']), /script-src 'self';/);
  assert.doesNotMatch(String(page.headers['content-security-policy']), /unsafe-eval|https?:/);
  assert.match(page.text, /<script src="\/assets\/api-docs\/redoc\.standalone\.js" defer><\/script>/);
  const bundle = await s.request('/assets/api-docs/redoc.standalone.js');
  assert.equal(bundle.status, 200);
  assert.match(String(bundle.headers['content-type']), /^text\/javascript/);
  assert.ok(bundle.text.length > 500_000);
  assert.doesNotMatch(bundle.text.slice(-200), /sourceMappingURL/);
  const production = { NODE_ENV: 'production', ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'), INTERNAL_API_TOKEN: randomBytes(24).toString('hex') };
  const off = await startTestServer({ env: production });
  try {
    assert.equal((await off.request('/docs')).status, 404);
    assert.equal((await off.request('/assets/api-docs/redoc.standalone.js')).status, 404);
    assert.equal((await off.request('/openapi.json')).status, 200, 'the document itself is always public');
  } finally {
    await off.close();
  }
  const on = await startTestServer({ env: { ...production, API_DOCS: 'true' } });
  try {
    assert.equal((await on.request('/docs')).status, 200);
  } finally {
    await on.close();
  }
});
