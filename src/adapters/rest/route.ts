// A REST route is data: method + path, the GraphQL operation it runs, where its variables come
// from, how the answer is shaped and what it may answer. A route that is not `public` refuses a
// caller without a valid session or token before its body is read (mount.ts); finer checks
// (scopes, recent authentication, ownership) and error codes stay in the resolvers. The OpenAPI
// document (openapi.ts) is printed from these same fields.
import type { TadaDocumentNode } from 'gql.tada';
import type { z } from 'zod';
import { notSignedIn } from '../../domain/errors.js';

/** The error statuses a route may name beyond those its kind always has (openapi.ts adds 400 for
 *  a malformed body, 401 and 403 for authenticated paths, 403 for a cross-site write, 413, 415). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 429;

interface RouteBase<Result, Variables> {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  /** One line for the API reference. */
  summary: string;
  /** Overrides the operation id derived from the GraphQL root field. */
  operationId?: string;
  /** Reached without a session or token (sign-up, sign-in, links from emails). */
  public?: true;
  /** The answer sets the `session` cookie (a sign-in). */
  setsCookie?: true;
  /** What each error status means on this path (API.md's "Errors" column). */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** The GraphQL operation (a typed document), validated against the schema at start-up. */
  document: TadaDocumentNode<Result, Variables>;
  /** JSON body field (snake_case) → GraphQL variable (checked against the document's variables). */
  body?: Record<string, keyof Variables & string>;
  /** Values for body fields that are absent or not strings, for paths that must answer the same
   *  to any JSON object (forgot-password: "400 only for a body that is not JSON"). */
  bodyFallback?: Record<string, string>;
  /** Path parameter → GraphQL variable. */
  params?: Record<string, keyof Variables & string>;
  /** Query-string parameter → GraphQL variable (an Int variable takes decimal digits). */
  query?: Record<string, keyof Variables & string>;
}

/** A route that answers a body: its schema, and the mapping typed to produce it. */
interface RouteWithBody<Result, Variables, S extends z.ZodType> extends RouteBase<Result, Variables> {
  status: 200 | 201 | 202;
  response: S;
  respond: (data: Result) => z.infer<S>;
}

/** A route that answers no body (204, or 202 for accepted work). */
interface RouteWithoutBody<Result, Variables> extends RouteBase<Result, Variables> {
  status: 202 | 204;
  response?: undefined;
  respond?: undefined;
}

/** A route with its result type erased, as the table holds them. */
export interface RestRoute extends RouteBase<unknown, Record<string, unknown>> {
  status: 200 | 201 | 202 | 204;
  response?: z.ZodType;
  respond?: (data: unknown) => unknown;
}

/** Types `respond` from the document and the response schema, then erases the types for the table. */
export function route<Result, Variables, S extends z.ZodType>(spec: RouteWithBody<Result, Variables, S>): RestRoute;
export function route<Result, Variables>(spec: RouteWithoutBody<Result, Variables>): RestRoute;
export function route(spec: RouteWithBody<unknown, unknown, z.ZodType> | RouteWithoutBody<unknown, unknown>): RestRoute {
  // Sound: mount.ts executes exactly `spec.document`, whose result is `Result` by construction.
  return spec as unknown as RestRoute;
}

/** A field the GraphQL type leaves nullable but this answer always has (the session token of a
 *  completed sign-in): missing, it is a fault of the server, not of the client. */
export function present<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('a field this answer always carries is missing');
  return value;
}

/** For queries whose root field is null when signed out (`me`): REST answers 401. */
export function signedIn<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw notSignedIn();
  return value;
}
