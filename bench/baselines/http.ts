// Baseline: a bare node:http server answering fixed bytes, whatever the request. The body is
// written as a string, the cheapest way for node (head and body go out in one write; a Buffer
// body makes it a two-chunk writev, which measured a few per cent more CPU per request).
import { createServer } from 'node:http';

const status = Number(process.env.BASELINE_STATUS ?? 200);
const headers = JSON.parse(process.env.BASELINE_HEADERS ?? '{}') as Record<string, string>;
const body = process.env.BASELINE_BODY ?? '';
const all = { ...headers, 'content-length': String(Buffer.byteLength(body)) };

createServer((_req, res) => {
  res.writeHead(status, all);
  res.end(body);
}).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
