// A REST route is data: method + path, the GraphQL operation it runs, where its variables come
// from, and how the answer is shaped. Auth, validation and error codes stay in the resolvers.
import type { TadaDocumentNode } from 'gql.tada';
import { unauthenticated } from '../../domain/errors.js';

export interface RestRouteSpec<Result, Variables> {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
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
  /** Success status; 204 sends no body. */
  status: number;
  /** Shapes the operation's data (typed from the document) into the response body. */
  respond?: (data: Result) => unknown;
}

/** A route with its result type erased, as the table holds them. */
export type RestRoute = RestRouteSpec<unknown, Record<string, unknown>>;

/** Types `respond` from the document, then erases the type for the table. */
export function route<Result, Variables>(spec: RestRouteSpec<Result, Variables>): RestRoute {
  // Sound: mount.ts executes exactly `spec.document`, whose result is `Result` by construction.
  return spec as unknown as RestRoute;
}

/** For queries whose root field is null when signed out (`me`): REST answers 401. */
export function signedIn<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw unauthenticated();
  return value;
}
