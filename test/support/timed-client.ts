// Times requests from a process of its own, as a client across the network sees them. An
// in-process client shares the server's event loop: work the server does after writing a reply
// (a failed sign-in's activity row, started on the loop's next turn) runs before that client can
// read the reply, so it would count in the time although the reply had already left.
import { spawn, type ChildProcess } from 'node:child_process';

/** The child: times each request it is sent over IPC, on one kept-alive connection. */
const CHILD = `
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
process.on('disconnect', () => process.exit(0));
process.on('message', ({ id, url, method, headers, body }) => {
  const started = process.hrtime.bigint();
  const req = http.request(url, { method, headers, agent }, (res) => {
    res.resume().on('end', () => process.send({ id, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
  });
  req.on('error', (err) => process.send({ id, error: err.message }));
  req.end(body);
});
`;

export interface TimedReply {
  status: number;
  /** From the request's first byte written to the reply's last byte read, in the child. */
  ms: number;
}

export interface TimedClient {
  /** POSTs `body` as JSON to `path` of the server at `baseUrl` (Host: its host name). */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<TimedReply>;
  close(): void;
}

export function timedClient(baseUrl: string): TimedClient {
  const base = new URL(baseUrl);
  const child: ChildProcess = spawn(process.execPath, ['-e', CHILD], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting = new Map<number, { resolve: (r: TimedReply) => void; reject: (e: Error) => void }>();
  let next = 0;
  child.on('message', (m: { id: number; status?: number; ms?: number; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve({ status: m.status ?? 0, ms: m.ms ?? NaN });
  });
  const failAll = (why: string) => {
    for (const w of waiting.values()) w.reject(new Error(why));
    waiting.clear();
  };
  child.on('exit', () => failAll('the timing client exited'));
  child.on('error', (err) => failAll(`the timing client failed: ${err.message}`));
  return {
    post(path, body, headers = {}) {
      const id = next++;
      const payload = JSON.stringify(body);
      // The loopback address itself (the server listens on 127.0.0.1), its name in Host.
      const url = `http://127.0.0.1:${base.port}${path}`;
      const all = { ...headers, host: base.host, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.send({ id, url, method: 'POST', headers: all, body: payload });
      });
    },
    close() {
      child.disconnect();
    },
  };
}
