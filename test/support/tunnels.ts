// Shared steps of the tunnel and card tests: tunnels of a signed-in account (signedIn() in
// accounts.ts) made through the REST API, and card requests with the Host header of a tunnel host.
import assert from 'node:assert/strict';
import type { Session } from './accounts.js';
import type { Reply, RequestOptions } from './http.js';
import type { Server } from './server.js';
import { spyOnSql } from './sql-spy.js';

export const CARD_PATH = '/.well-known/mcp/server-card.json';
export const LEGACY_CARD_PATH = '/.well-known/mcp-server-card.json';
export const V1_CARD_PATH = '/mcp/server-card';
export const CATALOG_PATH = '/.well-known/ai-catalog.json';

type Client = Pick<Server, 'request'>;
/** The tunnels' owner: its bearer token. */
type Owner = Pick<Session, 'token'>;

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


/**
 * Waits (up to 5 s) until the server's known-hosts filter is built: the card resolver then
 * answers an unknown host of `zone` without a query.
 */
export async function knownHostsInUse(server: Server, zone: string): Promise<void> {
  const spy = spyOnSql(server);
  try {
    for (let i = 0; i < 50; i++) {
      spy.reset();
      await card(server, `probe${i}--nowhere.${zone}`);
      if (spy.statements.length === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the known-hosts filter was not built within 5 s');
  } finally {
    spy.restore();
  }
}
