// Tunnel hosts and custom domains: the Server Card paths (SPEC 4.3, API.md section 14) and an
// `oauth` tunnel's protected resource metadata (API.md section 13, RFC 9728). These run on raw
// node:http before Fastify (see server.ts) and are the hot path: an in-process hit is a Map lookup
// and one write of pre-rendered bytes. No credential, no limit, and never the tunnel's upstream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Resolution } from '../../domain/cards/lookup.js';
import type { CardResolver } from '../../domain/cards/resolver.js';
import { throttled } from '../../infra/observability/log-throttle.js';
import type { Metrics } from '../../infra/observability/metrics.js';
import { cardProblems, METADATA_PREFLIGHT, PREFLIGHT } from './card-responses.js';
import { cardViews, etagMatches, renderDocument, type CardView } from './card-view.js';
import { problem, type RawOperation, type RawPaths } from '../openapi-paths.js';
import { writeFixed } from '../problem.js';
import { cardDocumentOf, type CardDocument, rawHeader } from './hosts.js';
import type { RawHandler } from './raw.js';
import { routeDurations } from './route-durations.js';

export interface CardHostDeps {
  resolver: Pick<CardResolver, 'peek' | 'resolve'>;
  metrics: Pick<Metrics, 'httpDuration'>;
  logger: Logger;
  /** BASE_URL, under which problem types live. */
  baseUrl: string;
}

export interface CardHandlers {
  /** A `<label>.ZONE` host: card paths, anything else 404. */
  tunnelHost: RawHandler;
  /** A card path on any other host: served when the host is a tunnel's custom domain. */
  customDomain: RawHandler;
}

/** Fixed route labels: one per document (both seed paths share one), one for anything else. */
const ROUTES: Readonly<Record<CardDocument, string>> = {
  seed: '/.well-known/mcp/server-card.json',
  v1: '/mcp/server-card',
  catalog: '/.well-known/ai-catalog.json',
  prm: '/.well-known/oauth-protected-resource',
};
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

export function createCardHandlers({ resolver, metrics, logger, baseUrl }: CardHostDeps): CardHandlers {
  const { NOT_FOUND, UNAVAILABLE, METHOD_NOT_ALLOWED } = cardProblems(baseUrl);
  const observe = routeDurations(metrics.httpDuration);
  const viewOf = cardViews();
  const prmViews = new WeakMap<Resolution, CardView>();
  const prmViewOf = (r: Resolution, json: string): CardView => {
    let view = prmViews.get(r);
    if (view === undefined) prmViews.set(r, (view = renderDocument(json, 'application/json')));
    return view;
  };
  const writeResolution = (req: IncomingMessage, res: ServerResponse, r: Resolution, doc: CardDocument): number => {
    if (doc === 'prm') return r.prm === null ? writeFixed(res, NOT_FOUND) : writeView(req, res, prmViewOf(r, r.prm));
    return r.kind === 'none' ? writeFixed(res, NOT_FOUND) : writeView(req, res, viewOf(r)[doc]);
  };
  const logUnavailable = throttled((err: unknown) => {
    logger.error({ err: (err as Error).message }, 'card host resolver unavailable');
  });

  const serveCard = (req: IncomingMessage, res: ServerResponse, host: string, doc: CardDocument, start: number): void => {
    const method = req.method;
    const route = ROUTES[doc];
    if (method !== 'GET' && method !== 'HEAD') {
      const status = writeFixed(res, method !== 'OPTIONS' ? METHOD_NOT_ALLOWED : doc === 'prm' ? METADATA_PREFLIGHT : PREFLIGHT);
      return observe(method, route, status, start);
    }
    const local = resolver.peek(host);
    if (local) return observe(method, route, writeResolution(req, res, local, doc), start);
    resolver.resolve(host).then(
      (r) => observe(method, route, writeResolution(req, res, r, doc), start),
      (err: unknown) => {
        logUnavailable(err);
        observe(method, route, writeFixed(res, UNAVAILABLE), start);
      },
    );
  };

  return {
    tunnelHost: (req, res, host) => {
      const start = performance.now();
      const doc = cardDocumentOf(req.url);
      if (doc !== null) return serveCard(req, res, host, doc, start);
      observe(req.method, OTHER_ROUTE, writeFixed(res, NOT_FOUND), start);
    },
    // Called by the router for a card path only (isCardPath); anything else never reaches here.
    customDomain: (req, res, host) => serveCard(req, res, host, cardDocumentOf(req.url) ?? 'seed', performance.now()),
  };
}

/** The seed card (SEP-2127 as first drafted), as far as a client may rely on it. */
const SeedCard = z.looseObject({ name: z.string(), title: z.string().optional(), remotes: z.array(z.looseObject({})) });

const card = (operationId: string, summary: string): RawOperation => ({
  operationId,
  summary,
  tags: ['Server Cards'],
  security: [],
  parameters: [{ name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } }],
  responses: {
    '200': {
      description: 'The card of a discoverable tunnel, with a strong ETag and public caching.',
      headers: { ETag: { schema: { type: 'string' } } },
      content: { 'application/json': SeedCard },
    },
    '304': { description: 'Not modified.' },
    '404': problem('No discoverable tunnel on this host.'),
    '502': problem('The card could not be built.'),
  },
});

export const cardPaths: RawPaths = {
  [ROUTES.seed]: { host: 'tunnel', get: card('getServerCard', "The tunnel's MCP Server Card.") },
  '/.well-known/mcp-server-card.json': { host: 'tunnel', get: card('getServerCardAlias', 'The same card, at its second path.') },
};
