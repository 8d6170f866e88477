// Tunnel hosts and custom domains: the Server Card paths (SPEC 4.3). These run on raw node:http
// before Fastify (see server.ts) and are the hot path: an in-process hit is a Map lookup and one
// write of pre-rendered bytes. No credential, no limit, and never the tunnel's upstream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Resolution } from '../../domain/cards/lookup.js';
import type { CardResolver } from '../../domain/cards/resolver.js';
import { throttled } from '../../infra/observability/log-throttle.js';
import type { Metrics } from '../../infra/observability/metrics.js';
import { METHOD_NOT_ALLOWED, NOT_FOUND, PREFLIGHT, UNAVAILABLE } from './card-responses.js';
import { cardViews, etagMatches, type CardView } from './card-view.js';
import { writeListed } from './problem.js';
import { isCardPath, rawHeader } from './hosts.js';
import type { RawHandler } from './raw.js';
import { routeDurations } from './route-durations.js';

export interface CardHostDeps {
  resolver: Pick<CardResolver, 'peek' | 'resolve'>;
  metrics: Pick<Metrics, 'hotDuration'>;
  logger: Logger;
}

export interface CardHandlers {
  /** A `<label>.ZONE` host: card paths, anything else 404. */
  tunnelHost: RawHandler;
  /** A card path on any other host: served when the host is a tunnel's custom domain. */
  customDomain: RawHandler;
}

/** One fixed route label for both card paths, one for anything else on a tunnel host. */
const CARD_ROUTE = '/.well-known/mcp/server-card.json';
const OTHER_ROUTE = 'unmatched';

function writeView(req: IncomingMessage, res: ServerResponse, view: CardView): number {
  const inm = rawHeader(req, 'if-none-match');
  if (inm !== undefined && etagMatches(inm, view.etag)) {
    res.writeHead(304, view.notModified);
    res.end();
    return 304;
  }
  res.writeHead(200, view.ok);
  res.end(view.body);
  return 200;
}

export function createCardHandlers({ resolver, metrics, logger }: CardHostDeps): CardHandlers {
  const observe = routeDurations(metrics.hotDuration);
  const viewOf = cardViews();
  const writeResolution = (req: IncomingMessage, res: ServerResponse, r: Resolution): number =>
    r.kind === 'none' ? writeListed(res, NOT_FOUND) : writeView(req, res, viewOf(r));
  const logUnavailable = throttled((err: unknown) => {
    logger.error({ err: (err as Error).message }, 'card host resolver unavailable');
  });

  const serveCard = (req: IncomingMessage, res: ServerResponse, host: string, start: number): void => {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') {
      const status = writeListed(res, method === 'OPTIONS' ? PREFLIGHT : METHOD_NOT_ALLOWED);
      return observe(method, CARD_ROUTE, status, start);
    }
    const local = resolver.peek(host);
    if (local) return observe(method, CARD_ROUTE, writeResolution(req, res, local), start);
    resolver.resolve(host).then(
      (r) => observe(method, CARD_ROUTE, writeResolution(req, res, r), start),
      (err: unknown) => {
        logUnavailable(err);
        observe(method, CARD_ROUTE, writeListed(res, UNAVAILABLE), start);
      },
    );
  };

  return {
    tunnelHost: (req, res, host) => {
      const start = performance.now();
      if (isCardPath(req.url)) return serveCard(req, res, host, start);
      observe(req.method, OTHER_ROUTE, writeListed(res, NOT_FOUND), start);
    },
    customDomain: (req, res, host) => serveCard(req, res, host, performance.now()),
  };
}
