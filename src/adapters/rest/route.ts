// A REST route is data: method + path, the GraphQL operation it runs, where its variables come
// from, and how the answer is shaped. Auth, validation and error codes stay in the resolvers.
import { unauthenticated } from '../../domain/errors.js';

export type Data = Record<string, unknown>;

export interface RestRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  /** The GraphQL operation, validated against the schema at start-up. */
  document: string;
  /** JSON body field (snake_case) → GraphQL variable. */
  body?: Record<string, string>;
  /** Values for body fields that are absent or not strings, for paths that must answer the same
   *  to any JSON object (forgot-password: "400 only for a body that is not JSON"). */
  bodyFallback?: Record<string, string>;
  /** Path parameter → GraphQL variable. */
  params?: Record<string, string>;
  /** Success status; 204 sends no body. */
  status: number;
  /** Shapes the operation's data into the response body. */
  respond?: (data: Data) => unknown;
}

/** For queries whose root field is null when signed out (`me`): REST answers 401. */
export function signedIn<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw unauthenticated();
  return value;
}
