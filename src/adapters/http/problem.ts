// application/problem+json (RFC 9457) with the catalog's code: one rendering, written by the raw
// handlers (card and zone hosts) and sent by Fastify (REST, pages, everything else).
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { ERROR_TITLE, type AppError } from '../../domain/errors.js';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
}

/** A complete answer: status, headers and body bytes, rendered once where it is fixed. */
export interface FixedResponse {
  status: number;
  headers: OutgoingHttpHeaders;
  /** A string: node sends head and body in one write. */
  body: string;
}

export function problemOf(e: AppError): Problem {
  return {
    type: 'about:blank',
    title: e.status === 500 ? 'Internal Server Error' : ERROR_TITLE[e.code],
    status: e.status,
    detail: e.message,
    code: e.code,
  };
}

export function problemResponse(e: AppError, extraHeaders: OutgoingHttpHeaders = {}): FixedResponse {
  const body = JSON.stringify(problemOf(e));
  const retry = e.extra.retryAfterSeconds;
  return {
    status: e.status,
    headers: {
      'content-type': 'application/problem+json',
      'content-length': Buffer.byteLength(body),
      ...(retry !== undefined ? { 'retry-after': String(retry) } : {}),
      ...extraHeaders,
    },
    body,
  };
}

/** Raw node handlers. Node leaves the body out by itself for HEAD requests and for 204/304. */
export function writeFixed(res: ServerResponse, r: FixedResponse): number {
  res.writeHead(r.status, r.headers);
  res.end(r.body);
  return r.status;
}

export function sendProblem(reply: FastifyReply, e: AppError, extraHeaders: OutgoingHttpHeaders = {}): FastifyReply {
  const r = problemResponse(e, extraHeaders);
  return reply.status(r.status).headers(r.headers).send(r.body);
}

export function writeProblem(res: ServerResponse, e: AppError, extraHeaders: OutgoingHttpHeaders = {}): number {
  return writeFixed(res, problemResponse(e, extraHeaders));
}
