// Host routing (API.md section 2) in the node:http listener, before Fastify:
//
//   node:http ──host──┬─ ZONE            → zone handler (/status, /healthz)        [raw, no Fastify]
//                     ├─ <label>.ZONE    → card handler                            [raw, no Fastify]
//                     ├─ card path, other host → card handler for custom domains   [raw]
//                     ├─ GET|HEAD /healthz, other host → zone handler's liveness answer [raw]
//                     └─ any other host  → Fastify: /graphql, REST shim, pages, /readyz, /metrics
//
// Liveness stays out of Fastify on every host: load balancers, orchestrators and the status
// roll-up's own api probe ask for it every few seconds, and a Fastify request now and then
// between raw requests makes node's shared HTTP functions polymorphic, which makes every raw
// request dearer (ADR 6).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { CardHandlers } from './card-host.js';
import { classifyHost, hostnameFrom, isCardPath, isValidHostValue, singleHostOf, type HostKind } from './hosts.js';
import { badRequest, PROBLEMS } from '../../domain/errors.js';
import { problemResponse, writeFixed } from '../problem.js';
import { guardRaw, type RawHandler } from './raw.js';

/** `/healthz`, with or without a query string, compared without building the path. */
const isLivenessPath = (url: string | undefined): boolean => url === '/healthz' || (url !== undefined && url.startsWith('/healthz?'));

/** RFC 9112 §3.2: a request with several Host lines, or an invalid one, is answered 400 and not routed. */

export interface HostRoutes {
  zone: string;
  apiHostname: string;
  zoneHost: RawHandler;
  cards: CardHandlers;
  logger: Logger;
  /** BASE_URL, under which problem types live. */
  baseUrl: string;
}

export function createHostRoutedServer(routes: HostRoutes, api: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const BAD_HOST = problemResponse(badRequest(PROBLEMS.badHost, 'The request needs exactly one valid Host header.'), routes.baseUrl, { connection: 'close' });
  const zoneHost = guardRaw(routes.zoneHost, routes.logger, routes.baseUrl);
  const tunnelHost = guardRaw(routes.cards.tunnelHost, routes.logger, routes.baseUrl);
  const customDomain = guardRaw(routes.cards.customDomain, routes.logger, routes.baseUrl);
  const { zone, apiHostname } = routes;
  // The last Host value routed and what it gave: clients send the same Host request after
  // request, and one string comparison replaces checking, lowercasing and classifying it again.
  // Only a value that passed the check is remembered ('' is the HTTP/1.0 request without Host).
  let lastValue = '';
  let hostname = hostnameFrom(lastValue);
  let kind: HostKind = classifyHost(hostname, zone);
  let isApiHost = hostname === apiHostname;
  return createServer((req, res) => {
    const value = singleHostOf(req);
    if (value !== lastValue) {
      if (value === null || !isValidHostValue(value)) return void writeFixed(res, BAD_HOST);
      lastValue = value;
      hostname = hostnameFrom(value);
      kind = classifyHost(hostname, zone);
      isApiHost = hostname === apiHostname;
    }
    if (kind === 'zone') return zoneHost(req, res, hostname);
    if (kind === 'tunnel') return tunnelHost(req, res, hostname);
    if (!isApiHost && isCardPath(req.url)) return customDomain(req, res, hostname);
    if (isLivenessPath(req.url) && (req.method === 'GET' || req.method === 'HEAD')) return zoneHost(req, res, hostname);
    api(req, res);
  });
}
