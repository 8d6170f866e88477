// HTTP adapters of the status area. The zone host (/status, /healthz) is a raw node:http handler
// called before Fastify: a cached /status is a clock read, a header check and one write.
// On the API host: /readyz.
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { pathOf, rawHeader } from './hosts.js';
import { sendProblem, writeProblem } from './problem.js';
import type { RawHandler } from './raw.js';
import type { HotSeries } from '../../infra/observability/hot-histogram.js';
import { checkReadiness } from '../../domain/status/readiness.js';
import { wantsHtml, type Snapshot } from '../../domain/status/render.js';
import { statusService } from '../../domain/status/service.js';

/** Fixed route labels: the duration histogram never sees a raw path or host. */
type ZoneRoute = '/status' | '/healthz' | 'unmatched';

export function createZoneHandler(deps: Deps): RawHandler {
  const status = statusService(deps);
  const observe = durationRecorder(deps);

  const writeStatus = (method: string, accept: string | undefined, res: ServerResponse, snap: Snapshot): void => {
    const rendered = wantsHtml(accept) ? snap.html : snap.json;
    res.writeHead(snap.statusCode, rendered.headers);
    res.end(method === 'HEAD' ? undefined : rendered.body);
  };

  return (req, res) => {
    const start = performance.now();
    const method = req.method ?? 'GET';
    const path = pathOf(req.url);
    const readable = method === 'GET' || method === 'HEAD';
    if (path === '/status' && readable) {
      const accept = rawHeader(req, 'accept');
      const snap = status.fresh();
      if (snap) {
        writeStatus(method, accept, res, snap);
        observe(method, '/status', snap.statusCode, start);
        return;
      }
      return status.current().then((s) => {
        writeStatus(method, accept, res, s);
        observe(method, '/status', s.statusCode, start);
      });
    }
    if (path === '/healthz' && readable) {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': 2, 'cache-control': 'no-store' });
      res.end(method === 'HEAD' ? undefined : 'ok');
      observe(method, '/healthz', 200, start);
      return;
    }
    if (path === '/status' || path === '/healthz') {
      writeProblem(res, { code: 'BAD_REQUEST', status: 405, message: 'Only GET and HEAD are allowed here.' }, { allow: 'GET, HEAD' });
      observe(method, path, 405, start);
      return;
    }
    writeProblem(res, { code: 'NOT_FOUND', status: 404, message: 'Not found.' });
    observe(method, 'unmatched', 404, start);
  };
}

/** Each (method, route, status) series is resolved once, so an observation costs no label hashing. */
function durationRecorder(deps: Deps): (method: string, route: ZoneRoute, status: number, startMs: number) => void {
  const series = new Map<string, HotSeries>();
  return (method, route, status, startMs) => {
    const key = `${method} ${route} ${status}`;
    let s = series.get(key);
    if (!s) {
      s = deps.metrics.hotDuration.child({ method, route, status: String(status) });
      series.set(key, s);
    }
    s.observe((performance.now() - startMs) / 1000);
  };
}

export function registerStatusRoutes(app: FastifyInstance, deps: Deps): void {
  app.get('/readyz', async (_req, reply) => {
    const readiness = await checkReadiness(deps);
    if (!readiness.ready) {
      const down = Object.entries(readiness.checks)
        .filter(([, outcome]) => outcome !== 'ok')
        .map(([name]) => name);
      return sendProblem(reply, { code: 'UNAVAILABLE', status: 503, message: `Not ready: ${down.join(' and ')} unreachable.` });
    }
    return reply.header('cache-control', 'no-store').send({ status: 'ready', checks: readiness.checks });
  });
}
