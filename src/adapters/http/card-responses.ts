// The fixed answers of card hosts, rendered once. Every 404 is the same bytes (an unknown host, a
// non-discoverable tunnel, another path), so a 404 never tells whether a tunnel exists.
import type { OutgoingHttpHeaders } from 'node:http';
import { badRequest, notFound, unavailable, type AppError } from '../../domain/errors.js';
import { listed, problemResponse, type FixedResponse } from './problem.js';

const cardProblem = (e: AppError, extra: OutgoingHttpHeaders = {}): FixedResponse =>
  problemResponse(e, {
    'cache-control': 'no-store',
    'access-control-allow-origin': '*',
    'x-content-type-options': 'nosniff',
    ...extra,
  });

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

/**
 * The protected resource metadata's preflight (API.md section 13a): MCP clients in a browser send
 * their protocol version and credentials headers with it.
 */
export const METADATA_PREFLIGHT = listed({
  status: 204,
  headers: {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD',
    'access-control-allow-headers': 'Content-Type, Authorization, MCP-Protocol-Version',
    'access-control-max-age': '600',
  },
  body: '',
});
