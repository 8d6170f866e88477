// The edge of API.md section 13, as small as a test needs it, and the network an MCP client sees.
//
// startMcpEdge(): a loopback HTTP server that plays the data plane of `oauth` tunnels. On
// `<label>.ZONE` hosts it serves `/mcp` as a real MCP server (the SDK's McpServer and
// StreamableHTTPServerTransport, stateless, one tool `whoami`) behind bearer authentication: no
// token or a bad one answers 401 with `WWW-Authenticate: Bearer resource_metadata="https://<host>
// /.well-known/oauth-protected-resource/mcp", scope="mcp"`; a token is verified as an RFC 9068 JWT
// (the server's JWKS, `iss` = BASE_URL, `aud` = the tunnel's /mcp URL, `typ` at+jwt), then
// `POST /oauth/introspect` (Bearer INTERNAL_API_TOKEN) must say it is active for the same subject,
// client and audience; without `mcp` in its scope it answers 403 insufficient_scope. (The real
// edge may re-check with introspection at most once a minute; this one checks on every request.)
//
// loopbackFetch(): the fetch a client library is given. A tunnel's resource URL is
// `https://<sub>--<slug>.ZONE/mcp`, which does not resolve here: requests to a tunnel host go to
// the edge, except its `/.well-known/` documents, which the server serves on the tunnel host
// (routed by the Host header, src/adapters/edge/hosts.ts); requests to BASE_URL go to the server.
// It speaks node:http so the Host header is the URL's, as on the real network; nothing else is
// reachable (a test never touches the internet).
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from './server.js';

export const PRM_MCP_PATH = '/.well-known/oauth-protected-resource/mcp';
export const EDGE_TOOL = 'whoami';

/** One request the edge answered on /mcp. */
export interface EdgeCall {
  host: string;
  method: string;
  status: number;
  /** Why it was refused, when it was. */
  refused?: string;
  /** The verified token's claims, when it was let through. */
  sub?: string;
  clientId?: string;
  jti?: string;
  scope?: string;
}

export interface McpEdge {
  readonly port: number;
  readonly calls: EdgeCall[];
  close(): Promise<void>;
}

export interface EdgeOptions {
  zone: string;
  internalToken: string;
}

/** What the tool answers: who the edge let through, read from the verified token. */
export interface WhoAmI {
  sub: string;
  client_id: string;
  scopes: string[];
  jti: string;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startMcpEdge(server: Server, opts: EdgeOptions): Promise<McpEdge> {
  const calls: EdgeCall[] = [];
  const issuer = server.deps.config.baseUrl;

  async function jwks(): Promise<ReturnType<typeof createLocalJWKSet>> {
    // Fetched per check: a key rotated in the meantime is found, and a test edge keeps no state.
    const r = await server.request('/oauth/jwks');
    if (r.status !== 200) throw new Error(`JWKS answered ${r.status}`);
    return createLocalJWKSet(r.json as JSONWebKeySet);
  }

  async function introspect(token: string): Promise<Record<string, unknown>> {
    const r = await server.request('/oauth/introspect', {
      method: 'POST',
      bearer: opts.internalToken,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
    if (r.status !== 200) throw new Error(`introspection answered ${r.status}: ${r.text}`);
    return r.json as Record<string, unknown>;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const path = (req.url ?? '/').split('?')[0];
    if (!host.endsWith(`.${opts.zone}`) || path !== '/mcp') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const resource = `https://${host}/mcp`;
    const call: EdgeCall = { host, method: req.method ?? 'GET', status: 0 };
    calls.push(call);
    const refuse = (status: 401 | 403, why: string, error?: 'invalid_token' | 'insufficient_scope') => {
      call.status = status;
      call.refused = why;
      const params = [...(error ? [`error="${error}"`] : []), `resource_metadata="https://${host}${PRM_MCP_PATH}"`, 'scope="mcp"'];
      res.writeHead(status, { 'www-authenticate': `Bearer ${params.join(', ')}`, 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: error ?? 'unauthorized', error_description: why }));
    };

    const bearer = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(req.headers.authorization ?? '');
    if (!bearer) return refuse(401, 'no bearer token');
    const token = bearer[1]!;
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, await jwks(), { issuer, audience: resource, typ: 'at+jwt', algorithms: ['ES256', 'EdDSA'] }));
    } catch (err) {
      return refuse(401, `JWT refused: ${(err as Error).message}`, 'invalid_token');
    }
    const seen = await introspect(token);
    const aud = Array.isArray(seen.aud) ? seen.aud : [seen.aud];
    if (seen.active !== true) return refuse(401, 'introspection: inactive', 'invalid_token');
    if (seen.sub !== claims.sub || seen.client_id !== claims.client_id || !aud.includes(resource)) {
      return refuse(401, `introspection disagrees with the JWT: ${JSON.stringify(seen)}`, 'invalid_token');
    }
    const scope = typeof claims.scope === 'string' ? claims.scope : '';
    Object.assign(call, { sub: claims.sub, clientId: String(claims.client_id), jti: claims.jti, scope });
    if (!scope.split(' ').includes('mcp')) return refuse(403, `scope "${scope}" lacks mcp`, 'insufficient_scope');

    // Stateless Streamable HTTP: no server-initiated stream, so GET (and DELETE) are 405.
    if (req.method !== 'POST') {
      call.status = 405;
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const auth: AuthInfo = {
      token,
      clientId: String(claims.client_id),
      scopes: scope.split(' '),
      ...(claims.exp ? { expiresAt: claims.exp } : {}),
      resource: new URL(resource),
      extra: { sub: claims.sub, jti: claims.jti },
    };
    const mcp = new McpServer({ name: 'edge-test-server', version: '1.0.0' });
    mcp.registerTool(EDGE_TOOL, { description: 'Who the edge let through: the verified token\'s subject, client and scopes' }, (extra) => {
      const who: WhoAmI = {
        sub: String(extra.authInfo?.extra?.sub),
        client_id: String(extra.authInfo?.clientId),
        scopes: extra.authInfo?.scopes ?? [],
        jti: String(extra.authInfo?.extra?.jti),
      };
      return { content: [{ type: 'text', text: JSON.stringify(who) }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    await transport.handleRequest(Object.assign(req, { auth }), res, body);
    call.status = res.statusCode;
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`edge error: ${(err as Error).message}`);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    port: (http.address() as AddressInfo).port,
    calls,
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.closeAllConnections();
        http.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** One request a client library made through loopbackFetch. */
export interface FetchLogEntry {
  method: string;
  url: string;
  status: number;
  /** The request body as text (registration bodies, token requests). */
  body: string;
}

export type LoopbackFetch = ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) & { log: FetchLogEntry[] };

export interface LoopbackOptions {
  zone: string;
  /** Sent as X-Forwarded-For to the server (TRUST_PROXY): the client's network, for per-network limits. */
  ip: string;
}

/**
 * A fetch for client libraries: tunnel hosts go to the edge (their `/.well-known/` documents to
 * the server, with the tunnel's Host), BASE_URL goes to the server, anything else fails.
 */
export function loopbackFetch(server: Server, edge: Pick<McpEdge, 'port'>, opts: LoopbackOptions): LoopbackFetch {
  const serverPort = Number(new URL(server.url).port);
  const baseOrigin = new URL(server.deps.config.baseUrl).origin;
  const log: FetchLogEntry[] = [];
  const fetchFn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    let port: number;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (url.hostname.endsWith(`.${opts.zone}`)) {
      const toServer = url.pathname.startsWith('/.well-known/');
      port = toServer ? serverPort : edge.port;
      if (toServer) headers['x-forwarded-for'] = opts.ip;
    } else if (url.origin === baseOrigin) {
      port = serverPort;
      headers['x-forwarded-for'] = opts.ip;
    } else {
      throw new TypeError(`fetch ${request.url}: not reachable from this test`);
    }
    headers.host = url.host;
    const payload = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    if (payload) headers['content-length'] = String(payload.length);
    const entry: FetchLogEntry = { method: request.method, url: request.url, status: 0, body: payload?.toString('utf8') ?? '' };
    log.push(entry);
    return new Promise<Response>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: request.method, path: url.pathname + url.search, headers, signal: request.signal }, (res) => {
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) out.append(name, one);
        }
        const status = res.statusCode ?? 502;
        entry.status = status;
        const noBody = request.method === 'HEAD' || status === 204 || status === 304;
        if (noBody) res.resume();
        resolve(new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, headers: out }));
      });
      req.on('error', reject);
      if (payload) req.write(payload);
      req.end();
    });
  };
  return Object.assign(fetchFn, { log });
}
