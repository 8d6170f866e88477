// The fixed answers of card hosts, rendered once. Every 404 is the same bytes (an unknown host, a
// non-discoverable tunnel, another path), so a 404 never tells whether a tunnel exists.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { badRequest, notFound, unavailable, type AppError } from '../../domain/errors.js';
import { problemResponse, type FixedResponse } from './problem.js';

const cardProblem = (e: AppError, extra: OutgoingHttpHeaders = {}): FixedResponse =>
  problemResponse(e, {
    'cache-control': 'no-store',
    'access-control-allow-origin': '*',
    'x-content-type-options': 'nosniff',
    ...extra,
  });

/**
 * Headers as writeHead's flat list (`[name, value, name, value, …]`): the same header lines as
 * the object, in the same order. The raw hot paths write lists because node's loop over a
 * headers *object* is shared with Fastify's replies and the status probes' requests, whose many
 * object shapes leave it megamorphic in the server process; the list loop only sees these lists
 * and stays fast. (A bare server gains nothing from lists: measured the same as an object.)
 */
export function headerList(headers: OutgoingHttpHeaders): string[] {
  const list: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) list.push(name, v);
    else list.push(name, String(value));
  }
  return list;
}

/** A complete answer whose headers are a list (see headerList). */
export interface ListedResponse {
  status: number;
  headers: string[];
  body: string;
}

export const listed = (r: FixedResponse): ListedResponse => ({ status: r.status, headers: headerList(r.headers), body: r.body });

/** Node leaves the body out by itself for HEAD requests and for 204/304. */
export function writeListed(res: ServerResponse, r: ListedResponse): number {
  res.writeHead(r.status, r.headers);
  res.end(r.body);
  return r.status;
}

export const NOT_FOUND = listed(cardProblem(notFound()));

export const UNAVAILABLE = listed(cardProblem(unavailable('The tunnel directory cannot be reached right now. Try again shortly.', 502)));

export const METHOD_NOT_ALLOWED = listed(
  cardProblem(badRequest('Card paths answer GET, HEAD and OPTIONS.', 405), {
    allow: 'GET, HEAD, OPTIONS',
  }),
);

/** The CORS preflight (API.md section 4): answered without resolving the host. */
export const PREFLIGHT = listed({
  status: 204,
  headers: {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD',
    'access-control-allow-headers': 'Content-Type, If-None-Match',
    'access-control-max-age': '600',
  },
  body: '',
});
