// The zone host (/status, its history and badges, /healthz, /favicon.ico): a raw node:http handler called before
// Fastify, so a cached /status or badge is a clock read, a header check and one write of
// pre-rendered bytes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { AppError, badRequest, internalError, notFound, PROBLEMS } from '../../domain/errors.js';
import type { StatusService } from '../../domain/status/service.js';
import type { Metrics } from '../../infra/observability/metrics.js';
import { FAVICON_PATH, writeFavicon } from './favicon.js';
import { pathOf, rawHeader } from './hosts.js';
import { problemResponse, writeFixed, writeProblem, type FixedResponse } from '../problem.js';
import { TEXT, type RawPaths } from '../openapi-paths.js';
import type { RawHandler } from './raw.js';
import { routeDurations } from './route-durations.js';
import { StatusRollup } from './status/schemas.js';
import { wantsHtml, type Rendered, type SnapshotView, type StatusViews } from './status/views.js';

export interface ZoneHostDeps {
  status: Pick<StatusService, 'fresh' | 'current' | 'freshHistory' | 'currentHistory'>;
  /** GET /status/incidents: the last 90 days of incidents, as a page or JSON (read at most every few seconds). */
  incidents: (html: boolean) => Promise<Rendered>;
  /** GET /status/feed.atom (read at most every few seconds). */
  feed: () => Promise<Rendered>;
  /** The subscription paths (status/subscriptions.ts); null for any other path. */
  subscriptions?: (req: IncomingMessage, res: ServerResponse, path: string, method: string) => Promise<number> | null;
  views: StatusViews;
  metrics: Pick<Metrics, 'httpDuration'>;
  /** BASE_URL, under which problem types live. */
  baseUrl: string;
}

// /healthz is asked every few seconds by load balancers and by the roll-up's own api probe.
const HEALTHY: FixedResponse = {
  status: 200,
  headers: { 'content-type': 'text/plain; charset=utf-8', 'content-length': '2', 'cache-control': 'no-store' },
  body: 'ok',
};

type BadgeOf = (view: SnapshotView) => Rendered;

/** The badge paths: each picks its pre-rendered answer from the snapshot. */
const BADGES = new Map<string, BadgeOf>([
  ['/status/badge.svg', (s) => s.badges.overall],
  ['/status/badge.json', (s) => s.badgeJson],
  ['/status/broker/badge.svg', (s) => s.badges.broker],
  ['/status/api/badge.svg', (s) => s.badges.api],
  ['/status/edge/badge.svg', (s) => s.badges.edge],
]);
/** Metric route labels: fixed patterns, never the raw path. */
const BADGE_ROUTE = (path: string): string => (path === '/status/badge.svg' || path === '/status/badge.json' ? path : '/status/<component>/badge.svg');
const HISTORY_PATH = '/status/history';
const INCIDENTS_PATH = '/status/incidents';
const SUMMARY_PATH = '/api/v2/summary.json';
const FEED_PATH = '/status/feed.atom';

function write(method: string, res: ServerResponse, status: number, rendered: Rendered): number {
  res.writeHead(status, rendered.headers);
  res.end(method === 'HEAD' ? undefined : rendered.body);
  return status;
}

const writeStatus = (method: string, accept: string | undefined, res: ServerResponse, view: SnapshotView): number =>
  write(method, res, view.statusCode, wantsHtml(accept) ? view.html : view.json);

export function createZoneHandler({ status, incidents, feed, subscriptions, views, metrics, baseUrl }: ZoneHostDeps): RawHandler {
  const NOT_FOUND = problemResponse(notFound(PROBLEMS.notFound), baseUrl);
  const METHOD_NOT_ALLOWED = problemResponse(badRequest(PROBLEMS.methodNotAllowed, 'Only GET and HEAD are allowed here.'), baseUrl, { allow: 'GET, HEAD' });
  const observe = routeDurations(metrics.httpDuration);
  return (req, res) => {
    const start = performance.now();
    const method = req.method ?? 'GET';
    const path = pathOf(req.url);
    const readable = method === 'GET' || method === 'HEAD';
    if (path === '/status' && readable) {
      const accept = rawHeader(req, 'accept');
      const snap = status.fresh();
      if (snap) return observe(method, '/status', writeStatus(method, accept, res, views.of(snap)), start);
      return status.current().then((s) => observe(method, '/status', writeStatus(method, accept, res, views.of(s)), start));
    }
    if (path === SUMMARY_PATH && readable) {
      const snap = status.fresh();
      if (snap) return observe(method, SUMMARY_PATH, write(method, res, 200, views.of(snap).summary), start);
      return status.current().then((s) => observe(method, SUMMARY_PATH, write(method, res, 200, views.of(s).summary), start));
    }
    const badge = BADGES.get(path);
    if (badge !== undefined && readable) {
      const snap = status.fresh();
      if (snap) return observe(method, BADGE_ROUTE(path), write(method, res, 200, badge(views.of(snap))), start);
      return status.current().then((s) => observe(method, BADGE_ROUTE(path), write(method, res, 200, badge(views.of(s))), start));
    }
    if (path === HISTORY_PATH && readable) {
      const ready = status.freshHistory();
      if (ready) return observe(method, HISTORY_PATH, write(method, res, 200, views.history(ready)), start);
      return status.currentHistory().then(
        (h) => observe(method, HISTORY_PATH, write(method, res, 200, views.history(h)), start),
        (err: unknown) => observe(method, HISTORY_PATH, writeProblem(res, err instanceof AppError ? err : internalError(), baseUrl), start),
      );
    }
    if ((path === INCIDENTS_PATH || path === FEED_PATH) && readable) {
      return (path === FEED_PATH ? feed() : incidents(wantsHtml(rawHeader(req, 'accept')))).then(
        (r) => observe(method, path, write(method, res, 200, r), start),
        (err: unknown) => observe(method, path, writeProblem(res, err instanceof AppError ? err : internalError(), baseUrl), start),
      );
    }
    const subscription = subscriptions?.(req, res, path, method);
    if (subscription) {
      return subscription.then(
        (code) => observe(method, path, code, start),
        (err: unknown) => observe(method, path, res.headersSent ? 500 : writeProblem(res, err instanceof AppError ? err : internalError(), baseUrl), start),
      );
    }
    if (path === '/healthz' && readable) return observe(method, '/healthz', writeFixed(res, HEALTHY), start);
    if (path === FAVICON_PATH && readable) return observe(method, FAVICON_PATH, writeFavicon(res), start);
    if (path === '/status' || path === '/healthz' || path === HISTORY_PATH || path === INCIDENTS_PATH || path === SUMMARY_PATH || path === FEED_PATH || badge !== undefined) {
      return observe(method, badge !== undefined ? BADGE_ROUTE(path) : path, writeFixed(res, METHOD_NOT_ALLOWED), start);
    }
    observe(method, 'unmatched', writeFixed(res, NOT_FOUND), start);
  };
}

export const statusPaths: RawPaths = {
  '/status': {
    host: 'zone',
    get: {
      operationId: 'getStatus',
      summary: 'The roll-up of broker, api and edge, as JSON or HTML by Accept.',
      tags: ['Status'],
      security: [],
      responses: {
        '200': {
          description: 'Every configured component is up (a broker without a health URL is listed as not configured, not as an outage).',
          content: { 'application/json': StatusRollup, 'text/html': TEXT },
        },
        '503': { description: 'A configured component is down.', content: { 'application/json': StatusRollup, 'text/html': TEXT } },
      },
    },
  },
};
