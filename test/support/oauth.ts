// Steps of the section 13 tests: an MCP client registering, authorizing with PKCE and the
// tunnel's /mcp URL as resource, the consent API, the code exchange.
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { Reply } from './http.js';
import type { Server } from './server.js';
import { createTunnel } from './tunnels.js';

export const REDIRECT = 'http://127.0.0.1:8765/callback';

export interface OAuthPerson {
  token: string;
  headers: Record<string, string>;
}

export const form = (server: Server, path: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
  server.request(path, { method: 'POST', body: new URLSearchParams(params).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });

export async function register(server: Server, extra: Record<string, unknown> = {}): Promise<{ client_id: string }> {
  // From a random network (the servers trust X-Forwarded-For): registrations are limited per network.
  const r = await server.request('/oauth/register', {
    method: 'POST',
    headers: { 'x-forwarded-for': `10.${randomInt(1, 255)}.${randomInt(0, 255)}.${randomInt(1, 255)}` },
    body: { client_name: 'Desk Assistant', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...extra },
  });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorize(server: Server, clientId: string, resource: string, challenge: string, extra: Record<string, string> = {}): Promise<Reply> {
  const q = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 'st-1', scope: 'mcp', resource, ...extra });
  return server.request(`/oauth/authorize?${q}`);
}

export const api = (p: OAuthPerson, path: string, method = 'GET', server: Server) => server.request(path, { method, bearer: p.token, headers: p.headers });

/** An oauth tunnel of `owner` (or `tunnel`), and a request for it up to the consent page. */
export async function toConsent(server: Server, owner: OAuthPerson, tunnel?: { host: string; id: string }) {
  const t = tunnel ?? (await createTunnel(server, owner, { access: 'oauth' }));
  const resource = `https://${t.host}/mcp`;
  const client = await register(server);
  const { verifier, challenge } = pkce();
  const r = await authorize(server, client.client_id, resource, challenge);
  assert.equal(r.status, 302, `${r.status} ${r.text}`);
  const consent = new URL(String(r.headers.location));
  assert.equal(`${consent.origin}${consent.pathname}`, `${server.deps.config.appUrl}/oauth/consent`);
  return { tunnel: t, resource, client, verifier, id: consent.searchParams.get('request')! };
}

/** Approves as `holder` and exchanges the code: the token response. */
export async function grantedTokens(server: Server, holder: OAuthPerson, flow: Awaited<ReturnType<typeof toConsent>>): Promise<Reply['json']> {
  const approved = await api(holder, `/api/oauth/requests/${flow.id}/approve`, 'POST', server);
  assert.equal(approved.status, 200, approved.text);
  const code = new URL(approved.json.redirect_to).searchParams.get('code')!;
  const tokens = await form(server, '/oauth/token', { grant_type: 'authorization_code', code, code_verifier: flow.verifier, redirect_uri: REDIRECT, client_id: flow.client.client_id, resource: flow.resource });
  assert.equal(tokens.status, 200, tokens.text);
  return tokens.json;
}
