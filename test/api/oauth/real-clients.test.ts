// OAuth for tunnels with the clients people use (API.md sections 13 and 13a, "Proven with real
// clients"): the official MCP TypeScript SDK's client authorization (discovery from the resource's
// 401, dynamic registration as the SDK sends it, PKCE, finishAuth, refresh on the edge's 401) and
// oauth4webapi, a certified OAuth client library (RFC 9728 and 8414 discovery, registration or a
// client metadata document, authorization code with PKCE, the RFC 9207 `iss` check, refresh, the
// device grant), each ending in a real MCP tools/list through a resource server that plays the
// edge (test/support/mcp-edge.ts: 401 with WWW-Authenticate, then the JWT checked with the JWKS
// and introspection). The tunnel's https://<host>/mcp URLs are routed to loopback by the fetch the
// libraries are given; the server's BASE_URL is its own loopback origin, so the issuer the
// libraries check is the one they talk to.
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import { fromIp, randomIp, signedIn, type SignedIn } from '../../support/accounts.js';
import { useFixture } from '../../support/fixture.js';
import { approveInConsole, MemoryOAuthProvider, mcpWithToken, toolsAndWho } from '../../support/mcp-client.js';
import { EDGE_TOOL, loopbackFetch, PRM_MCP_PATH, startMcpEdge, type LoopbackFetch } from '../../support/mcp-edge.js';
import type { OAuthPerson } from '../../support/oauth.js';
import { freePort } from '../../support/programs.js';
import { useServer } from '../../support/server.js';
import { createTunnel } from '../../support/tunnels.js';

const ZONE = 'tunnels.example.test';
const INTERNAL = 'internal-test-token-real-clients-0123456789';
const TLS = new URL('../../fixtures/tls/', import.meta.url);
const CA_FILE = fileURLToPath(new URL('localhost-cert.pem', TLS));
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

// BASE_URL is the server's own origin: the issuer the libraries discover and check is reachable.
const port = useFixture(() => freePort(), async () => {});
const s = useServer(() => ({
  port: port(),
  env: {
    ZONE,
    TRUST_PROXY: 'true',
    INTERNAL_API_TOKEN: INTERNAL,
    BASE_URL: `http://localhost:${port()}`,
    OAUTH_ALLOW_PRIVATE_CLIENT_URLS: 'true',
    OAUTH_CLIENT_URLS_CA_FILE: CA_FILE,
  },
}));

/** Client ID metadata documents, served over TLS on loopback (the test CA). */
const documents = new Map<string, unknown>();
const docs = useFixture(
  async () => {
    const https = createHttpsServer({ cert: readFileSync(CA_FILE), key: readFileSync(new URL('localhost-key.pem', TLS)) }, (req, res) => {
      const doc = documents.get(req.url ?? '');
      if (doc === undefined) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' }).end(JSON.stringify(doc));
    });
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
    return { https, origin: `https://localhost:${(https.address() as AddressInfo).port}` };
  },
  ({ https }) => new Promise<void>((resolve) => https.close(() => resolve())),
);

const edge = useFixture(() => startMcpEdge(s, { zone: ZONE, internalToken: INTERNAL }), (e) => e.close());

type Person = SignedIn & OAuthPerson;

interface Setup {
  owner: Person;
  resource: string;
  host: string;
  /** The client's network: the same machine as the person's browser. */
  fetch: LoopbackFetch;
}

/** A verified owner with an oauth tunnel, and the fetch of an MCP client on the owner's machine. */
async function ownerWithTunnel(): Promise<Setup> {
  const ip = randomIp();
  const headers = fromIp(ip);
  const owner = { ...(await signedIn(s, { headers, verified: true })), headers };
  const tunnel = await createTunnel(s, owner, { access: 'oauth' });
  return { owner, resource: `https://${tunnel.host}/mcp`, host: tunnel.host, fetch: loopbackFetch(s, edge(), { zone: ZONE, ip }) };
}

const loopbackRedirect = (path = '/callback') => `http://127.0.0.1:${randomInt(20000, 60000)}${path}`;

// ---------------------------------------------------------------------------------------------
// The MCP TypeScript SDK

/** What an MCP host built on the SDK registers (the SDK adds `scope` from the resource metadata). */
const sdkMetadata = (redirect: string): OAuthClientMetadata => ({
  client_name: 'MCP SDK host',
  redirect_uris: [redirect],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
});

/** The error connect() ended with (an UnauthorizedError is the SDK's "sent the user to authorize"). */
async function connectError(client: Client, transport: StreamableHTTPClientTransport): Promise<unknown> {
  return client.connect(transport).then(
    () => null,
    (err: unknown) => err,
  );
}

/**
 * The SDK's whole walk with `provider`: first contact answered 401 by the edge, discovery,
 * registration (unless a client metadata document is used), the authorization URL, the person's
 * consent, finishAuth, tools/list through the edge; then the access token goes stale, the edge
 * answers 401 and the SDK refreshes and retries.
 */
async function sdkWalk(setup: Setup, provider: MemoryOAuthProvider): Promise<{ clientId: string }> {
  const { owner, resource, host, fetch } = setup;
  const transport = () => new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider, fetch });

  const first = new Client({ name: 'real-clients-test', version: '1.0.0' });
  const firstTransport = transport();
  const err = await connectError(first, firstTransport);
  if (!(err instanceof UnauthorizedError)) throw err ?? new Error('connect succeeded without a token');
  const challenge = fetch.log.find((e) => e.url === resource);
  assert.equal(challenge?.status, 401, 'the edge answered the first request 401');
  assert.equal(edge().calls.find((c) => c.host === host)?.refused, 'no bearer token');
  assert.ok(fetch.log.some((e) => e.url === `https://${host}${PRM_MCP_PATH}` && e.status === 200), 'the SDK read the metadata named by resource_metadata');
  const discovered = provider.discoveryState();
  assert.equal(discovered?.authorizationServerUrl, s.deps.config.baseUrl);
  assert.equal(discovered?.resourceMetadata?.resource, resource);

  const authorizationUrl = provider.authorizationUrl;
  assert.ok(authorizationUrl, 'the SDK sent the user to authorize');
  const asked = authorizationUrl.searchParams;
  assert.equal(asked.get('resource'), resource);
  assert.equal(asked.get('code_challenge_method'), 'S256');
  assert.ok(asked.get('code_challenge'));
  assert.equal(asked.get('scope'), 'mcp');
  assert.equal(asked.get('state'), provider.lastState);
  const clientId = asked.get('client_id')!;

  const { request, redirectTo } = await approveInConsole(s, owner, authorizationUrl);
  assert.equal(request.client_id, clientId);
  assert.equal(request.resource, resource);
  assert.deepEqual(request.scopes, ['mcp']);
  assert.equal(request.allowed, true);
  assert.equal(`${redirectTo.origin}${redirectTo.pathname}`, provider.redirectUrl);
  assert.equal(redirectTo.searchParams.get('state'), provider.lastState);
  assert.equal(redirectTo.searchParams.get('iss'), s.deps.config.baseUrl, 'RFC 9207');
  await firstTransport.finishAuth(redirectTo.searchParams.get('code')!);
  await first.close();
  const tokens = provider.tokens();
  assert.ok(tokens?.access_token && tokens.refresh_token, 'an access and a refresh token');
  assert.equal(tokens.token_type.toLowerCase(), 'bearer');
  assert.equal(tokens.scope, 'mcp');
  assert.equal(decodeJwt(tokens.access_token).aud, resource);

  const client = new Client({ name: 'real-clients-test', version: '1.0.0' });
  await client.connect(transport());
  const used = await toolsAndWho(client);
  await client.close();
  assert.deepEqual(used.tools, [EDGE_TOOL], 'tools/list through the edge');
  assert.deepEqual({ sub: used.who.sub, client_id: used.who.client_id, scopes: used.who.scopes }, { sub: owner.id, client_id: clientId, scopes: ['mcp'] });

  // Refresh as the SDK does it: the edge refuses the stale access token, the SDK refreshes, retries.
  provider.expireAccessToken();
  const again = new Client({ name: 'real-clients-test', version: '1.0.0' });
  await again.connect(transport());
  const later = await toolsAndWho(again);
  await again.close();
  const refreshed = provider.tokens()!;
  assert.ok(fetch.log.some((e) => e.url === `${s.deps.config.baseUrl}/oauth/token` && e.body.includes('grant_type=refresh_token') && e.status === 200), 'the SDK refreshed');
  assert.notEqual(refreshed.refresh_token, tokens.refresh_token, 'the refresh token rotated');
  assert.notEqual(refreshed.access_token, tokens.access_token);
  assert.equal(later.who.jti, decodeJwt(refreshed.access_token).jti, 'the edge let the refreshed token through');
  assert.equal(later.who.sub, owner.id);
  return { clientId };
}

test('MCP SDK: registration as the SDK sends it (with scope), authorize, consent, exchange, tools/list through the edge, refresh', async () => {
  const setup = await ownerWithTunnel();
  const redirect = loopbackRedirect();
  const provider = new MemoryOAuthProvider(redirect, sdkMetadata(redirect));
  const { clientId } = await sdkWalk(setup, provider);
  const registration = setup.fetch.log.find((e) => e.url === `${s.deps.config.baseUrl}/oauth/register`);
  assert.ok(registration, 'the SDK registered');
  assert.equal(registration.status, 201);
  assert.equal((JSON.parse(registration.body) as { scope?: string }).scope, 'mcp', 'the SDK copies the resource\'s scope into the registration');
  assert.equal(provider.clientInformation()?.client_id, clientId);
});

test('MCP SDK: a client ID metadata document client (its document carrying scope "mcp"), no registration', async () => {
  const setup = await ownerWithTunnel();
  const redirect = loopbackRedirect();
  const path = `/clients/sdk-host-${randomInt(1e9)}.json`;
  const clientId = `${docs().origin}${path}`;
  documents.set(path, {
    client_id: clientId,
    client_name: 'MCP SDK host by URL',
    redirect_uris: [redirect],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope: 'mcp',
  });
  const provider = new MemoryOAuthProvider(redirect, sdkMetadata(redirect), clientId);
  const walked = await sdkWalk(setup, provider);
  assert.equal(walked.clientId, clientId, 'the SDK used the document URL as client_id');
  assert.ok(!setup.fetch.log.some((e) => e.url.endsWith('/oauth/register')), 'no dynamic registration');
});

// ---------------------------------------------------------------------------------------------
// oauth4webapi

/** oauth4webapi's request options: the loopback network; BASE_URL is plain http on loopback. */
function o4wOptions(fetch: LoopbackFetch) {
  return {
    [oauth.customFetch]: (url: string, options: { body?: unknown; headers: Record<string, string>; method: string; redirect: 'manual'; signal?: AbortSignal }) =>
      fetch(url, options as RequestInit),
    // The issuer is http://localhost in a test (the option is deprecated, still the way to allow it).
    [oauth.allowInsecureRequests]: true,
  };
}

/** Runs an oauth4webapi step; an OAuth error answer becomes an error naming status, error and description. */
async function o4w<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof oauth.ResponseBodyError) throw new Error(`${err.status} ${err.error}: ${err.error_description ?? ''}`, { cause: err });
    if (err instanceof oauth.AuthorizationResponseError) throw new Error(`authorization response: ${err.error}: ${err.error_description ?? ''}`, { cause: err });
    if (err instanceof oauth.WWWAuthenticateChallengeError) throw new Error(`${err.status} WWW-Authenticate: ${JSON.stringify(err.cause)}`, { cause: err });
    if (err instanceof oauth.OperationProcessingError) throw new Error(`${err.code}: ${err.message} ${JSON.stringify(err.cause)}`, { cause: err });
    throw err;
  }
}

/** RFC 9728 from the resource, then RFC 8414 from the authorization server it names. */
async function discover(resource: string, fetch: LoopbackFetch): Promise<oauth.AuthorizationServer> {
  const opts = o4wOptions(fetch);
  return o4w(async () => {
    const rs = await oauth.processResourceDiscoveryResponse(new URL(resource), await oauth.resourceDiscoveryRequest(new URL(resource), opts));
    assert.deepEqual(rs.authorization_servers, [s.deps.config.baseUrl]);
    assert.deepEqual(rs.scopes_supported, ['mcp']);
    const issuer = new URL(rs.authorization_servers[0]!);
    return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...opts, algorithm: 'oauth2' }));
  });
}

async function register(as: oauth.AuthorizationServer, fetch: LoopbackFetch, metadata: Partial<oauth.Client>): Promise<oauth.Client> {
  return o4w(async () => oauth.processDynamicClientRegistrationResponse(await oauth.dynamicClientRegistrationRequest(as, metadata, o4wOptions(fetch))));
}

interface CodeFlow {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  redirectUri: string;
  setup: Setup;
  /** Sent as given; null: no scope parameter. */
  scope?: string | null;
}

/** Authorization code with PKCE and state; the consent; `iss` checked (RFC 9207); the exchange. */
async function codeFlow(f: CodeFlow): Promise<{ tokens: oauth.TokenEndpointResponse; request: Record<string, unknown> }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(f.as.authorization_endpoint!);
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: f.client.client_id,
    redirect_uri: f.redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    resource: f.setup.resource,
  };
  const scope = f.scope === undefined ? 'mcp' : f.scope;
  if (scope !== null) params.scope = scope;
  url.search = new URLSearchParams(params).toString();
  const { request, redirectTo } = await approveInConsole(s, f.setup.owner, url);
  assert.ok(redirectTo.href.startsWith(`${f.redirectUri}?`), `back to ${f.redirectUri}: ${redirectTo.href}`);
  const tokens = await o4w(async () => {
    const callback = oauth.validateAuthResponse(f.as, f.client, redirectTo, state);
    const res = await oauth.authorizationCodeGrantRequest(f.as, f.client, f.clientAuth, callback, f.redirectUri, verifier, {
      ...o4wOptions(f.setup.fetch),
      additionalParameters: { resource: f.setup.resource },
    });
    return oauth.processAuthorizationCodeResponse(f.as, f.client, res);
  });
  assert.equal(tokens.token_type, 'bearer');
  assert.equal(tokens.scope, 'mcp');
  assert.ok(tokens.refresh_token, 'a refresh token');
  return { tokens, request: request as Record<string, unknown> };
}

function refresh(f: Pick<CodeFlow, 'as' | 'client' | 'clientAuth' | 'setup'>, refreshToken: string): Promise<oauth.TokenEndpointResponse> {
  return o4w(async () =>
    oauth.processRefreshTokenResponse(f.as, f.client, await oauth.refreshTokenGrantRequest(f.as, f.client, f.clientAuth, refreshToken, o4wOptions(f.setup.fetch))),
  );
}

/** The token works through the edge: tools/list, and whoami names the owner and the client. */
async function usableAtEdge(setup: Setup, accessToken: string, clientId: string): Promise<void> {
  const { tools, who } = await mcpWithToken(setup.resource, accessToken, setup.fetch);
  assert.deepEqual(tools, [EDGE_TOOL]);
  assert.deepEqual({ sub: who.sub, client_id: who.client_id, scopes: who.scopes }, { sub: setup.owner.id, client_id: clientId, scopes: ['mcp'] });
  assert.equal(who.jti, decodeJwt(accessToken).jti);
}

/** A public client's whole life with oauth4webapi: code flow, the edge, refresh, the edge again. */
async function publicClientWalk(setup: Setup, as: oauth.AuthorizationServer, client: oauth.Client, redirectUri: string): Promise<void> {
  const flow = { as, client, clientAuth: oauth.None(), redirectUri, setup };
  const { tokens } = await codeFlow(flow);
  await usableAtEdge(setup, tokens.access_token, client.client_id);
  const next = await refresh(flow, tokens.refresh_token!);
  assert.notEqual(next.refresh_token, tokens.refresh_token, 'rotated');
  await usableAtEdge(setup, next.access_token, client.client_id);
}

test('oauth4webapi: a native client whose loopback redirect is registered without a port comes back on another port (RFC 8252)', async () => {
  const setup = await ownerWithTunnel();
  const as = await discover(setup.resource, setup.fetch);
  const client = await register(as, setup.fetch, {
    client_name: 'Loopback native app',
    application_type: 'native',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  await publicClientWalk(setup, as, client, loopbackRedirect('/callback'));
});

test('oauth4webapi: a private-use scheme redirect (cursor://) registered without application_type', async () => {
  const setup = await ownerWithTunnel();
  const as = await discover(setup.resource, setup.fetch);
  const redirect = 'cursor://anysphere.cursor-retrieval/oauth/callback';
  const client = await register(as, setup.fetch, {
    client_name: 'Cursor',
    redirect_uris: [redirect],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  await publicClientWalk(setup, as, client, redirect);
});

test('VS Code: its registration body is accepted, and its loopback redirect runs the flow on another port', async () => {
  const setup = await ownerWithTunnel();
  const as = await discover(setup.resource, setup.fetch);
  // microsoft/vscode src/vs/base/common/oauth.ts fetchDynamicRegistration(): the grant types it
  // supports that the metadata lists, its redirect URIs, the scope from the resource.
  const vscodeGrants = ['authorization_code', 'refresh_token', DEVICE_GRANT];
  const grantTypes = as.grant_types_supported ? as.grant_types_supported.filter((g) => vscodeGrants.includes(g)) : vscodeGrants;
  assert.deepEqual(grantTypes, vscodeGrants, 'the metadata lists all three, so VS Code asks for all three');
  const redirectUris = ['https://insiders.vscode.dev/redirect', 'https://vscode.dev/redirect', 'http://127.0.0.1/', 'http://127.0.0.1:33418/'];
  const r = await setup.fetch(as.registration_endpoint!, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Visual Studio Code',
      client_uri: 'https://code.visualstudio.com',
      grant_types: grantTypes,
      response_types: ['code'],
      redirect_uris: redirectUris,
      scope: 'mcp',
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    }),
  });
  const text = await r.text();
  assert.equal(r.status, 201, text);
  const registered = JSON.parse(text) as oauth.Client & { redirect_uris: string[] };
  assert.equal(typeof registered.client_id, 'string');
  assert.equal(registered.token_endpoint_auth_method, 'none');
  assert.deepEqual([...registered.redirect_uris].sort(), [...redirectUris].sort());
  // 33418 taken: VS Code listens on another port of the portless loopback URI.
  await publicClientWalk(setup, as, { client_id: registered.client_id }, loopbackRedirect('/'));
});

test('oauth4webapi: a registration asking for client_secret_post is answered as a public client (none) and works', async () => {
  const setup = await ownerWithTunnel();
  const as = await discover(setup.resource, setup.fetch);
  const client = await register(as, setup.fetch, {
    client_name: 'Secret-minded app',
    redirect_uris: ['http://127.0.0.1:7777/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_post',
  });
  assert.equal(client.token_endpoint_auth_method, 'none', 'RFC 7591 3.2.1: the answer shows what was registered');
  assert.equal(client.client_secret, undefined, 'no secret for a public registration');
  await publicClientWalk(setup, as, client, 'http://127.0.0.1:7777/callback');
});

test('oauth4webapi: an operator-registered confidential client runs the code flow with client_secret_basic and client_secret_post', async () => {
  const setup = await ownerWithTunnel();
  const as = await discover(setup.resource, setup.fetch);
  const redirectUri = 'https://app.example.test/oauth/callback';
  const created = await s.request('/internal/oauth/clients', {
    method: 'POST',
    bearer: INTERNAL,
    body: { client_name: 'Operator-registered web app', redirect_uris: [redirectUri], application_type: 'web', confidential: true },
  });
  assert.equal(created.status, 201, created.text);
  const { client_id: clientId, client_secret: secret } = created.json as { client_id: string; client_secret: string };
  assert.equal(typeof clientId, 'string');
  assert.equal(typeof secret, 'string');
  assert.ok(as.token_endpoint_auth_methods_supported?.includes('client_secret_basic'), 'the metadata lists client_secret_basic');
  assert.ok(as.token_endpoint_auth_methods_supported?.includes('client_secret_post'), 'the metadata lists client_secret_post');
  const client: oauth.Client = { client_id: clientId };
  let last = '';
  for (const clientAuth of [oauth.ClientSecretBasic(secret), oauth.ClientSecretPost(secret)]) {
    const flow = { as, client, clientAuth, redirectUri, setup };
    const { tokens, request } = await codeFlow(flow);
    assert.equal(request.client_name, 'Operator-registered web app');
    await usableAtEdge(setup, tokens.access_token, clientId);
    const next = await refresh(flow, tokens.refresh_token!);
    await usableAtEdge(setup, next.access_token, clientId);
    last = next.refresh_token!;
  }
  // A wrong secret: 401 invalid_client with WWW-Authenticate (the client tried to authenticate).
  const wrong = await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretBasic('not-the-secret'), last, o4wOptions(setup.fetch));
  assert.equal(wrong.status, 401);
  assert.ok(wrong.headers.get('www-authenticate'), 'WWW-Authenticate on invalid_client');
  assert.equal(((await wrong.json()) as { error: string }).error, 'invalid_client');
});

test('oauth4webapi: one refresh token presented twice at once gets the same successor; presented after the successor was used, it revokes the grant', async () => {
  const setup = await ownerWithTunnel();
  const as = await discover(setup.resource, setup.fetch);
  const client = await register(as, setup.fetch, {
    client_name: 'Racing host',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  const flow = { as, client, clientAuth: oauth.None(), redirectUri: loopbackRedirect('/callback'), setup };
  const { tokens } = await codeFlow(flow);
  const first = tokens.refresh_token!;

  // Two processes of one host refresh with the same token at the same moment.
  const [a, b] = await Promise.all([refresh(flow, first), refresh(flow, first)]);
  assert.ok(a.refresh_token && b.refresh_token);
  assert.equal(a.refresh_token, b.refresh_token, 'the chain never forks: one successor');
  assert.notEqual(a.refresh_token, first);
  await usableAtEdge(setup, a.access_token, client.client_id);
  await usableAtEdge(setup, b.access_token, client.client_id);

  // The successor is used; the first one again is a reuse: the whole grant goes.
  const c = await refresh(flow, a.refresh_token);
  await usableAtEdge(setup, c.access_token, client.client_id);
  await assert.rejects(refresh(flow, first), /invalid_grant/);
  await assert.rejects(refresh(flow, c.refresh_token!), /invalid_grant/, 'the grant is revoked: its newest refresh token too');
  const introspected = await s.request('/oauth/introspect', {
    method: 'POST',
    bearer: INTERNAL,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: c.access_token }).toString(),
  });
  assert.equal(introspected.status, 200, introspected.text);
  assert.equal(introspected.json.active, false);
  const refused = await mcpWithToken(setup.resource, c.access_token, setup.fetch).then(
    () => null,
    (err: unknown) => err as { code?: number },
  );
  assert.equal(refused?.code, 401, 'the edge refuses the revoked grant\'s access token');
});

test('oauth4webapi: the device grant with client_id=tunnel-cli, approved by a signed-in verified person', async () => {
  const setup = await ownerWithTunnel();
  const issuer = new URL(s.deps.config.baseUrl);
  const opts = o4wOptions(setup.fetch);
  const as = await o4w(async () => oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...opts, algorithm: 'oauth2' })));
  assert.ok(as.grant_types_supported?.includes(DEVICE_GRANT));
  const client: oauth.Client = { client_id: 'tunnel-cli' };
  const started = await o4w(async () =>
    oauth.processDeviceAuthorizationResponse(as, client, await oauth.deviceAuthorizationRequest(as, client, oauth.None(), {}, opts)),
  );
  assert.equal(started.verification_uri, `${s.deps.config.appUrl}/device`);
  const poll = () => o4w(async () => oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, oauth.None(), started.device_code, opts)));
  await assert.rejects(poll(), /authorization_pending/);

  const person = setup.owner;
  const lookup = await s.request('/api/device/lookup', { method: 'POST', bearer: person.token, headers: person.headers, body: { user_code: started.user_code } });
  assert.equal(lookup.status, 200, lookup.text);
  assert.equal(lookup.json.client_id, 'tunnel-cli');
  const approved = await s.request('/api/device/approve', { method: 'POST', bearer: person.token, headers: person.headers, body: { user_code: started.user_code } });
  assert.equal(approved.status, 204, approved.text);
  // The next poll after the interval (the server's clock moves; the test does not sleep).
  s.clock.advance(((started.interval ?? 5) + 1) * 1000);
  const tokens = await poll();
  assert.equal(tokens.token_type, 'bearer');
  assert.equal(tokens.scope, 'tunnels:read tunnels:write');
  assert.match(tokens.access_token, /^tsk_/);
  const res = await oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL(`${s.deps.config.baseUrl}/api/tunnels`), undefined, undefined, opts);
  assert.equal(res.status, 200, await res.clone().text());
  const listed = (await res.json()) as { tunnels: { host: string }[] };
  assert.ok(listed.tunnels.some((t) => t.host === setup.host), 'the service token reads the person\'s tunnels');
});

test('oauth4webapi: an authorization request without scope is for mcp: the consent shows it and the token carries it', async () => {
  const setup = await ownerWithTunnel();
  const as = await discover(setup.resource, setup.fetch);
  const client = await register(as, setup.fetch, {
    client_name: 'Scopeless app',
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  const { tokens, request } = await codeFlow({ as, client, clientAuth: oauth.None(), redirectUri: loopbackRedirect('/callback'), setup, scope: null });
  assert.deepEqual(request.scopes, ['mcp']);
  assert.equal(decodeJwt(tokens.access_token).scope, 'mcp');
  await usableAtEdge(setup, tokens.access_token, client.client_id);
});
