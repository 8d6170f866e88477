// Shared steps of the tunnel and card tests: an account signed in over HTTP, its tunnels made
// through the REST API, and card requests with the Host header of a tunnel host.
import assert from 'node:assert/strict';
import type { Reply, RequestOptions } from './http.js';
import { uniqueEmail } from './server.js';

export const PASSWORD = 'correct horse battery';
export const CARD_PATH = '/.well-known/mcp/server-card.json';
export const LEGACY_CARD_PATH = '/.well-known/mcp-server-card.json';

export interface Owner {
  email: string;
  token: string;
  slug: string;
  id: string;
}

interface Client {
  request(path: string, opts?: RequestOptions): Promise<Reply>;
}

export async function signIn(s: Client, prefix = 'tun'): Promise<Owner> {
  const email = uniqueEmail(prefix);
  const signup = await s.request('/auth/signup', { method: 'POST', body: { email, password: PASSWORD } });
  assert.equal(signup.status, 201, signup.text);
  const login = await s.request('/auth/login', { method: 'POST', body: { email, password: PASSWORD } });
  assert.equal(login.status, 200, login.text);
  return { email, token: login.json.token, slug: signup.json.slug, id: signup.json.id };
}

let n = 0;
/** A subdomain unique within the test run (the database is shared between runs on real backends). */
export function uniqueSubdomain(prefix = 't'): string {
  n++;
  return `${prefix}${Date.now().toString(36)}${n}`.slice(0, 33);
}

export async function createTunnel(s: Client, owner: Owner, body: Record<string, unknown> = {}): Promise<Reply['json']> {
  const r = await s.request('/api/tunnels', { method: 'POST', bearer: owner.token, body: { subdomain: uniqueSubdomain(), ...body } });
  assert.equal(r.status, 201, r.text);
  return r.json;
}

export async function patchTunnel(s: Client, owner: Owner, id: string, body: Record<string, unknown>): Promise<Reply> {
  return s.request(`/api/tunnels/${id}`, { method: 'PATCH', bearer: owner.token, body });
}

/** A discoverable tunnel, ready to serve its card. */
export async function discoverableTunnel(s: Client, owner: Owner, body: Record<string, unknown> = {}): Promise<Reply['json']> {
  const t = await createTunnel(s, owner, body);
  const r = await patchTunnel(s, owner, t.id, { discoverable: true });
  assert.equal(r.status, 200, r.text);
  return r.json;
}

export function card(s: Client, host: string, opts: RequestOptions & { path?: string } = {}): Promise<Reply> {
  return s.request(opts.path ?? CARD_PATH, { ...opts, host });
}

export function customDomain(label = 'mcp'): string {
  n++;
  return `${label}-${Date.now().toString(36)}${n}.example.org`;
}

/** The INTERNAL_API_TOKEN the tests configure. */
export const INTERNAL_TOKEN = 'internal-test-token-0123456789';

export function pinTools(s: Client, tunnelId: string, tools: unknown, token = INTERNAL_TOKEN): Promise<Reply> {
  return s.request(`/internal/tunnels/${tunnelId}/tools`, { method: 'PUT', bearer: token, body: tools });
}

