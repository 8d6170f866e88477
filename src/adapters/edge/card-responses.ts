// The fixed answers of card hosts, rendered once. Every 404 is the same bytes (an unknown host, a
// non-discoverable tunnel, another path), so a 404 never tells whether a tunnel exists.
import type { OutgoingHttpHeaders } from 'node:http';
import { type AppError, badRequest, notFound, PROBLEMS, unavailable } from '../../domain/errors.js';
import { problemResponse, type FixedResponse } from '../problem.js';

/** The problem answers of card hosts, rendered once per server (their `type` is under BASE_URL). */
export function cardProblems(baseUrl: string): Record<'NOT_FOUND' | 'UNAVAILABLE' | 'METHOD_NOT_ALLOWED', FixedResponse> {
  const cardProblem = (e: AppError, extra: OutgoingHttpHeaders = {}): FixedResponse =>
    problemResponse(e, baseUrl, {
      'cache-control': 'no-store',
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
      ...extra,
    });
  return {
    NOT_FOUND: cardProblem(notFound(PROBLEMS.cardNotFound)),
    UNAVAILABLE: cardProblem(unavailable(PROBLEMS.directoryUnreachable, 'The tunnel directory cannot be reached right now. Try again shortly.')),
    METHOD_NOT_ALLOWED: cardProblem(badRequest(PROBLEMS.methodNotAllowed, 'Card paths answer GET, HEAD and OPTIONS.'), { allow: 'GET, HEAD, OPTIONS' }),
  };
}

/** The CORS preflight (API.md section 4): answered without resolving the host. */
export const PREFLIGHT: FixedResponse = {
  status: 204,
  headers: {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD',
    'access-control-allow-headers': 'Content-Type, If-None-Match',
    'access-control-max-age': '600',
  },
  body: '',
};

/**
 * The protected resource metadata's preflight (API.md section 13a): MCP clients in a browser send
 * their protocol version and credentials headers with it.
 */
export const METADATA_PREFLIGHT: FixedResponse = {
  status: 204,
  headers: {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET, HEAD',
    'access-control-allow-headers': 'Content-Type, Authorization, MCP-Protocol-Version',
    'access-control-max-age': '600',
  },
  body: '',
};
