// The client side of the real-client tests (API.md section 13a, "Proven with real clients"): an
// in-memory OAuthClientProvider for the MCP TypeScript SDK (what an MCP host stores between
// runs), the person's part of an authorization (the browser opening the authorization URL, the
// console's consent API approving it) and an MCP session through the edge with a given token.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Reply } from './http.js';
import { EDGE_TOOL, type LoopbackFetch, type WhoAmI } from './mcp-edge.js';
import type { Server } from './server.js';
import { api, type OAuthPerson } from './oauth.js';

/** An MCP host's storage for one server: what the SDK saves, kept as saved. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  clientMetadataUrl?: string;
  /** The last URL the SDK sent the user to. */
  authorizationUrl: URL | undefined;
  /** The state of the last authorization request. */
  lastState: string | undefined;
  /** Every token response saved, oldest first. */
  readonly savedTokens: OAuthTokens[] = [];
  private client: OAuthClientInformationMixed | undefined;
  private current: OAuthTokens | undefined;
  private verifier: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;

  constructor(
    private readonly redirect: string,
    private readonly metadata: OAuthClientMetadata,
    clientMetadataUrl?: string,
  ) {
    if (clientMetadataUrl) this.clientMetadataUrl = clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return this.metadata;
  }

  state(): string {
    this.lastState = randomBytes(16).toString('base64url');
    return this.lastState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.current;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.current = tokens;
    this.savedTokens.push(tokens);
  }

  /** What a host holding an expired access token has: a refresh token and an access token the edge refuses. */
  expireAccessToken(): void {
    assert.ok(this.current, 'tokens saved');
    this.current = { ...this.current, access_token: 'expired-access-token' };
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    assert.ok(this.verifier, 'a code verifier was saved');
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}

export interface Approval {
  /** GET /api/oauth/requests/<id>: what the consent page shows. */
  request: Reply['json'];
  /** Where the console sends the browser back: the client's redirect URI with code, state, iss. */
  redirectTo: URL;
}

/**
 * The person's part: the browser opens the authorization URL (302 to the console's consent
 * page), the console reads the request and approves it with the person's session.
 */
export async function approveInConsole(server: Server, person: OAuthPerson, authorizationUrl: URL | string): Promise<Approval> {
  const url = new URL(authorizationUrl);
  assert.equal(url.origin, new URL(server.deps.config.baseUrl).origin, 'the authorization endpoint is on BASE_URL');
  const opened = await server.request(url.pathname + url.search, { headers: person.headers });
  assert.equal(opened.status, 302, `authorize answered ${opened.status}: ${opened.text.slice(0, 500)}`);
  const consent = new URL(String(opened.headers.location));
  assert.equal(`${consent.origin}${consent.pathname}`, `${server.deps.config.appUrl}/oauth/consent`, `authorize sent the browser to ${consent.href}`);
  const id = consent.searchParams.get('request');
  assert.ok(id, consent.href);
  const request = await api(person, `/api/oauth/requests/${id}`, 'GET', server);
  assert.equal(request.status, 200, request.text);
  const approved = await api(person, `/api/oauth/requests/${id}/approve`, 'POST', server);
  assert.equal(approved.status, 200, approved.text);
  return { request: request.json, redirectTo: new URL(approved.json.redirect_to) };
}

/** An MCP session through the edge with a bearer token and no auth provider: the tools and whoami. */
export async function mcpWithToken(resource: string, accessToken: string, fetchFn: LoopbackFetch): Promise<{ tools: string[]; who: WhoAmI }> {
  const client = new Client({ name: 'real-clients-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(resource), { fetch: fetchFn, requestInit: { headers: { authorization: `Bearer ${accessToken}` } } });
  await client.connect(transport);
  try {
    return await toolsAndWho(client);
  } finally {
    await client.close();
  }
}

/** tools/list, then the edge's tool: who the edge let through. */
export async function toolsAndWho(client: Client): Promise<{ tools: string[]; who: WhoAmI }> {
  const listed = await client.listTools();
  const result = await client.callTool({ name: EDGE_TOOL });
  const content = result.content as { type: string; text: string }[];
  assert.equal(content[0]?.type, 'text');
  return { tools: listed.tools.map((t) => t.name), who: JSON.parse(content[0].text) as WhoAmI };
}
