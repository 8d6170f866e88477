// How a plain-HTTP path (not a GraphQL operation of the REST table) describes itself for the
// OpenAPI document: each handler module declares its paths next to its handler, with the zod
// schemas of what it reads and answers (the handler's answer is typed from the same schema), and
// src/adapters/rest/openapi.ts prints them with the rest of the document. Plain data: printing
// adds the framing answers every path may give (400 for a bad Host, 414 for a long parameter).
import { z } from 'zod';

/** A piece of the document as it is printed (plain JSON). */
export type Json = Record<string, unknown>;

/** A body's schema: zod (printed to JSON Schema; named shapes become components), or a plain JSON
 *  Schema for what zod has nothing to say about (text, HTML, XML). */
export type BodySchema = z.ZodType | Json;

/** media type → schema. */
export type Content = Record<string, BodySchema>;

export interface RawResponse {
  description: string;
  headers?: Json;
  content?: Content;
}

export interface RawOperation {
  operationId: string;
  summary: string;
  tags: [string];
  /** `[]`: public; otherwise the schemes, one of which is needed (`{}` for "none"). */
  security: Json[];
  parameters?: Json[];
  requestBody?: { required: boolean; content: Content };
  responses: Record<string, RawResponse>;
  externalDocs?: { url: string; description: string };
}

/** Which host serves a path: the API host (the default), ZONE (the status page), or a tunnel host. */
export type RawHost = 'api' | 'zone' | 'tunnel';

export interface RawPath {
  host?: RawHost;
  get?: RawOperation;
  post?: RawOperation;
  put?: RawOperation;
  delete?: RawOperation;
}

/** OpenAPI path (`/internal/tunnels/{id}/tools`) → its operations. */
export type RawPaths = Record<string, RawPath>;

const PROBLEM_SCHEMA = { $ref: '#/components/schemas/Problem' };

/** An answer in problem+json (RFC 9457). */
export const problem = (description: string, headers?: Json): RawResponse => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/problem+json': PROBLEM_SCHEMA },
});

/** Either a problem+json or, for a browser (Accept: text/html), a page. */
export const problemOrPage = (description: string): RawResponse => ({
  description,
  content: { 'application/problem+json': PROBLEM_SCHEMA, 'text/html': TEXT },
});

export const RETRY_AFTER: Json = { 'Retry-After': { description: 'Seconds until a new attempt may succeed.', schema: { type: 'integer' } } };

/** Any fault of the server: 500, or 503 when a dependency it needs is down. */
export const SERVER_FAULT = problem('A fault of the server, or a dependency it needs is unavailable (503, UNAVAILABLE).');

/** A text body (a page, a feed, the metrics). */
export const TEXT: Json = { type: 'string' };

/** A page for a browser. */
export const page = (description: string): RawResponse => ({ description, content: { 'text/html': TEXT } });

/** A path parameter (every one is a string). */
export const pathParameter = (name: string, schema: Json = { type: 'string' }): Json => ({ name, in: 'path', required: true, schema });

/** A query parameter, its schema (and description) from the zod schema the handler reads it with. */
export function queryParameter(name: string, schema: z.ZodType, required = false): Json {
  const { description, $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input' }) as Json;
  return { name, in: 'query', required, ...(description ? { description } : {}), schema: json };
}

/** INTERNAL_API_TOKEN's answers, for the operator and edge paths. */
export const INTERNAL_TOKEN_REQUIRED = problem('INTERNAL_API_TOKEN is required.');
export const BODY_OVER_64K = problem('The body is over 64 KiB.');
export const NOT_JSON = problem('The body is not application/json.');
