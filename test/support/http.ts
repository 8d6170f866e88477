// A small HTTP client over node:http: unlike fetch it lets tests set the Host header, which host
// routing depends on, and it never follows redirects.
import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test assertions read arbitrary JSON
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Objects are sent as JSON; strings and Buffers as they are. */
  body?: unknown;
  host?: string;
  bearer?: string;
  cookie?: string;
}

/**
 * Keep-alive, but an idle socket is dropped after 1 s: well before a server closes it (node's
 * keepAliveTimeout, 5 s), so a request never goes out on a socket the server is closing at that
 * moment (node's global agent keeps idle sockets 5 s too: the two raced into "socket hang up"
 * after a pause of about 5 s, as during a cache failover).
 */
const agent = new Agent({ keepAlive: true, timeout: 1000, scheduling: 'lifo' });

export function request(baseUrl: string, path: string, opts: RequestOptions = {}): Promise<Reply> {
  const url = new URL(path, baseUrl);
  const headers: Record<string, string> = { ...opts.headers };
  let payload: Buffer | undefined;
  if (opts.body !== undefined) {
    payload = Buffer.isBuffer(opts.body)
      ? opts.body
      : Buffer.from(typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body));
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(payload.length);
  }
  if (opts.host) headers.host = opts.host;
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  if (opts.cookie) headers.cookie = opts.cookie;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname: url.hostname, port: url.port, path: url.pathname + url.search, method: opts.method ?? 'GET', headers, agent },
      (res) => readReply(res).then(resolve, reject),
    );
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** The value of the `session` cookie set by a response, if any. */
export function sessionCookie(reply: Reply): string | null {
  const set = reply.headers['set-cookie'] ?? [];
  for (const c of set) {
    const m = /^session=([^;]*)/.exec(c);
    if (m) return m[1] ?? null;
  }
  return null;
}

/** A response read whole: its status, headers, text and (when it parses) JSON. */
export function readReply(res: IncomingMessage): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
    });
    res.on('error', reject);
  });
}
