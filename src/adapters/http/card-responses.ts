// The fixed answers of card hosts, rendered once. Every 404 is the same bytes (an unknown host, a
// non-discoverable tunnel, another path), so a 404 never tells whether a tunnel exists.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { problemOf } from './problem.js';
import type { ClassifiedError } from '../graphql/errors.js';

export interface FixedResponse {
  status: number;
  headers: OutgoingHttpHeaders;
  /** A string: node sends head and body in one write (see RenderedCard). */
  body: string;
}

function problem(e: ClassifiedError, extra: OutgoingHttpHeaders = {}): FixedResponse {
  const body = JSON.stringify(problemOf(e));
  return {
    status: e.status,
    headers: {
      'content-type': 'application/problem+json',
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
      ...extra,
    },
    body,
  };
}

export const NOT_FOUND = problem({ code: 'NOT_FOUND', status: 404, message: 'Not found.' });

export const UNAVAILABLE = problem({
  code: 'UNAVAILABLE',
  status: 502,
  message: 'The tunnel directory cannot be reached right now. Try again shortly.',
});

export const METHOD_NOT_ALLOWED = problem(
  { code: 'BAD_REQUEST', status: 405, message: 'Card paths answer GET, HEAD and OPTIONS.' },
  { allow: 'GET, HEAD, OPTIONS' },
);

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

/** Node leaves the body out by itself for HEAD requests and for 204/304. */
export function writeFixed(res: ServerResponse, r: FixedResponse): number {
  res.writeHead(r.status, r.headers);
  res.end(r.body);
  return r.status;
}
