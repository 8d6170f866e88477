// Baseline: a bare node:http server answering fixed bytes, whatever the request.
import { createServer } from 'node:http';

const status = Number(process.env.BASELINE_STATUS ?? 200);
const headers = JSON.parse(process.env.BASELINE_HEADERS ?? '{}') as Record<string, string>;
const body = Buffer.from(process.env.BASELINE_BODY ?? '');
const all = { ...headers, 'content-length': String(body.length) };

createServer((_req, res) => {
  res.writeHead(status, all);
  res.end(body);
}).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
