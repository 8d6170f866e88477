// application/problem+json (RFC 9457) with the catalog's code, for the REST layer and every
// plain HTTP answer of the server.
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { ERROR_TITLE, isErrorCode } from '../../domain/errors.js';
import type { ClassifiedError } from '../graphql/errors.js';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
}

export function problemOf(e: ClassifiedError): Problem {
  return {
    type: 'about:blank',
    title: isErrorCode(e.code) ? ERROR_TITLE[e.code] : 'Internal Server Error',
    status: e.status,
    detail: e.message,
    code: e.code === 'INTERNAL' ? 'UNAVAILABLE' : e.code,
  };
}

export function sendProblem(reply: FastifyReply, e: ClassifiedError): FastifyReply {
  if (e.retryAfterSeconds !== undefined) reply.header('retry-after', String(e.retryAfterSeconds));
  return reply.status(e.status).type('application/problem+json').send(problemOf(e));
}

/** For raw node handlers (card and zone hosts), which answer before Fastify. */
export function writeProblem(res: ServerResponse, e: ClassifiedError, extraHeaders: Record<string, string> = {}): void {
  const body = JSON.stringify(problemOf(e));
  res.writeHead(e.status, {
    'content-type': 'application/problem+json',
    'content-length': Buffer.byteLength(body),
    ...extraHeaders,
  });
  res.end(body);
}
