// Requests released together, for race tests: each request gets its own connection and sends its
// headers and all of its body but the last byte; once every one of them has reached the server,
// the last bytes go out in the same tick. The server can start none of them before that (it waits
// for the whole body), so they run at the same moment as closely as a test can make them.
import { request as httpRequest } from 'node:http';
import { readReply, type Reply } from './http.js';

export interface HeldRequest {
  /** http://host:port of the server (an instance, or the load balancer). */
  base: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  /** At least one byte: the last one is held back until the release. */
  body: string;
}

/** Sends every request, holds them at their last byte, releases them together: their replies, in order. */
export async function released(requests: readonly HeldRequest[]): Promise<Reply[]> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const sent: Promise<void>[] = [];
  const replies = requests.map(
    (r) =>
      new Promise<Reply>((resolve, reject) => {
        const url = new URL(r.path, r.base);
        const body = Buffer.from(r.body);
        if (body.length === 0) throw new Error('released(): a request needs a body to hold back');
        const req = httpRequest(
          {
            hostname: url.hostname,
            port: url.port,
            path: url.pathname + url.search,
            method: r.method ?? 'POST',
            // A connection of its own: none waits behind another on a pooled socket.
            agent: false,
            headers: { ...r.headers, 'content-length': String(body.length) },
          },
          (res) => readReply(res).then(resolve, reject),
        );
        req.on('error', reject);
        // Flushed to the socket (so connected, headers sent) before the release.
        sent.push(new Promise<void>((ok, fail) => req.write(body.subarray(0, -1), (err) => (err ? fail(err) : ok()))));
        void gate.then(() => req.end(body.subarray(-1)));
      }),
  );
  await Promise.all(sent);
  // Let the server read what was sent (headers parsed, routes matched) before the last bytes.
  await new Promise((r) => setTimeout(r, 20));
  release();
  return Promise.all(replies);
}

/** A form-encoded POST for released(). */
export const heldForm = (base: string, path: string, params: Record<string, string>, headers: Record<string, string> = {}): HeldRequest => ({
  base,
  path,
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(params).toString(),
});
