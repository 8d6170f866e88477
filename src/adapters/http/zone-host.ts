// The zone host (/status, /healthz): a raw node:http handler called before Fastify, so a cached
// /status is a clock read, a header check and one write of pre-rendered bytes.
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { badRequest, notFound } from '../../domain/errors.js';
import { wantsHtml, type Snapshot } from '../../domain/status/render.js';
import type { StatusService } from '../../domain/status/service.js';
import type { Metrics } from '../../infra/observability/metrics.js';
import { pathOf, rawHeader } from './hosts.js';
import { problemResponse, writeFixed, type FixedResponse } from './problem.js';
import type { RawHandler } from './raw.js';
import { routeDurations } from './route-durations.js';

export interface ZoneHostDeps {
  status: Pick<StatusService, 'fresh' | 'current'>;
  metrics: Pick<Metrics, 'hotDuration'>;
}

const NOT_FOUND = problemResponse(notFound());
const METHOD_NOT_ALLOWED = problemResponse(badRequest('Only GET and HEAD are allowed here.', 405), { allow: 'GET, HEAD' });
const HEALTHY: FixedResponse = {
  status: 200,
  headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': 2, 'cache-control': 'no-store' },
  body: 'ok',
};

function writeStatus(method: string, accept: string | undefined, res: ServerResponse, snap: Snapshot): number {
  const rendered = wantsHtml(accept) ? snap.html : snap.json;
  res.writeHead(snap.statusCode, rendered.headers);
  res.end(method === 'HEAD' ? undefined : rendered.body);
  return snap.statusCode;
}

export function createZoneHandler({ status, metrics }: ZoneHostDeps): RawHandler {
  const observe = routeDurations(metrics.hotDuration);
  return (req, res) => {
    const start = performance.now();
    const method = req.method ?? 'GET';
    const path = pathOf(req.url);
    const readable = method === 'GET' || method === 'HEAD';
    if (path === '/status' && readable) {
      const accept = rawHeader(req, 'accept');
      const snap = status.fresh();
      if (snap) return observe(method, '/status', writeStatus(method, accept, res, snap), start);
      return status.current().then((s) => observe(method, '/status', writeStatus(method, accept, res, s), start));
    }
    if (path === '/healthz' && readable) return observe(method, '/healthz', writeFixed(res, HEALTHY), start);
    if (path === '/status' || path === '/healthz') return observe(method, path, writeFixed(res, METHOD_NOT_ALLOWED), start);
    observe(method, 'unmatched', writeFixed(res, NOT_FOUND), start);
  };
}
