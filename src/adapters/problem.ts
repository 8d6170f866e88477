// application/problem+json (RFC 9457) with the catalog's code: one rendering, written by the raw
// handlers (card and zone hosts) and sent by Fastify (REST, pages, everything else).
import { STATUS_CODES, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { ERROR_TITLE, type AppError } from '../domain/errors.js';
import { problemTypeUri, type ProblemType } from '../domain/problems.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** BASE_URL: problem types are BASE_URL/problems/<slug> (decorated by registerErrorHandlers). */
    problemBaseUrl: string;
  }
}

/**
 * An input of the request that is not acceptable, as RFC 9457's own example extends a problem:
 * `pointer` is the JSON Pointer (RFC 6901) of the body member, `parameter` a query or path
 * parameter's name, `detail` what is wrong with it.
 */
export interface InvalidInput {
  detail: string;
  pointer?: string;
  parameter?: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: InvalidInput[];
}

/** A complete answer: status, headers and body bytes, rendered once where it is fixed. */
export interface FixedResponse {
  status: number;
  headers: OutgoingHttpHeaders;
  /** A string: node sends head and body in one write. */
  body: string;
}

/** RFC 9110's reason phrases where node's table keeps the older names. */
const REASON_PHRASE: Readonly<Record<number, string>> = { 413: 'Content Too Large', 422: 'Unprocessable Content' };

/** A problem's title is the reason phrase of its status (a 415 is "Unsupported Media Type", whatever its code). */
const titleOf = (e: AppError): string => REASON_PHRASE[e.status] ?? STATUS_CODES[e.status] ?? ERROR_TITLE[e.code];

/** `baseUrl` is BASE_URL: the problem's `type` is its catalog entry's URI under it. */
export function problemOf(e: AppError, baseUrl: string, errors?: InvalidInput[]): Problem {
  return {
    type: problemTypeUri(baseUrl, e.problem),
    title: titleOf(e),
    status: e.status,
    detail: e.message,
    code: e.code,
    ...(errors?.length ? { errors } : {}),
  };
}

export function problemResponse(e: AppError, baseUrl: string, extraHeaders: OutgoingHttpHeaders = {}, errors?: InvalidInput[]): FixedResponse {
  const body = JSON.stringify(problemOf(e, baseUrl, errors));
  const retry = e.extra.retryAfterSeconds;
  return {
    status: e.status,
    headers: {
      'content-type': 'application/problem+json',
      'content-length': String(Buffer.byteLength(body)),
      ...(retry !== undefined ? { 'retry-after': String(retry) } : {}),
      ...extraHeaders,
    },
    body,
  };
}

/** Writes a fixed answer. Node leaves the body out by itself for HEAD requests and for 204/304. */
export function writeFixed(res: ServerResponse, r: FixedResponse): number {
  res.writeHead(r.status, r.headers);
  res.end(r.body);
  return r.status;
}

export function sendProblem(reply: FastifyReply, e: AppError, extraHeaders: OutgoingHttpHeaders = {}, errors?: InvalidInput[]): FastifyReply {
  const r = problemResponse(e, reply.server.problemBaseUrl, extraHeaders, errors);
  return reply.status(r.status).headers(r.headers).send(r.body);
}

export function writeProblem(res: ServerResponse, e: AppError, baseUrl: string, extraHeaders: OutgoingHttpHeaders = {}): number {
  return writeFixed(res, problemResponse(e, baseUrl, extraHeaders));
}

/** A catalog entry as the API documents it (`x-problem-types` of /openapi.json, GET /problems/<slug>). */
export const problemTypeFields = (p: ProblemType) => ({
  slug: p.slug,
  area: p.area,
  code: p.code,
  status: p.status,
  title: p.title,
  description: p.description,
  ...(p.oauthError ? { oauth_error: p.oauthError } : {}),
});
