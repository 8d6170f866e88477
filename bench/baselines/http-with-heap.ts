// The bare node:http baseline (baselines/http.ts: fixed bytes, whatever the request) in a process
// that first builds and keeps a heap of the server's size (BASELINE_HEAP_MIB, default 70: many
// small objects, as a loaded module graph is). Used only by bench/reducer-step.ts, to show what
// V8's memory reducer does to node's own HTTP path in a process whose heap it acts on; no floor is
// measured against it.
import { createServer } from 'node:http';

const status = Number(process.env.BASELINE_STATUS ?? 200);
const headers = JSON.parse(process.env.BASELINE_HEADERS ?? '{}') as Record<string, string>;
const body = process.env.BASELINE_BODY ?? '';
const all = { ...headers, 'content-length': String(Buffer.byteLength(body)) };

const heapBytes = Number(process.env.BASELINE_HEAP_MIB ?? 70) * 2 ** 20;
const kept: { id: number; name: string; pair: number[]; inner: { id: number } }[] = [];
while (process.memoryUsage().heapUsed < heapBytes) {
  for (let i = 0; i < 10_000; i++) kept.push({ id: i, name: `entry ${i}`, pair: [i, i + 1], inner: { id: i } });
}

createServer((_req, res) => {
  res.writeHead(status, all);
  res.end(body);
}).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');

// The heap stays reachable for the process's whole life.
process.on('SIGTERM', () => process.exit(kept.length > 0 ? 0 : 1));
