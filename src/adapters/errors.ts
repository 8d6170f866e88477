// Every failure, classified once for every surface: an AppError keeps its code and status;
// GraphQL's own errors (syntax, validation, variable coercion, depth and cost limits) and the HTTP
// framework's 4xx refusals are the client's and become BAD_REQUEST; anything else is an internal
// fault, answered as UNAVAILABLE with status 500 and a fixed message (and logged by the caller).
import { GraphQLError } from 'graphql';
import { AppError, badRequest, internalError, isErrorCode, notSignedIn, PROBLEMS, unauthenticated, type ErrorCode, type ProblemType } from '../domain/errors.js';

export const BODY_LIMIT = 64 * 1024;

export interface Classified {
  error: AppError;
  /** An internal fault: the caller logs the original, the client sees only `error`. */
  internal: boolean;
}

export const bodyTooLarge = () => badRequest(PROBLEMS.bodyTooLarge, 'The request body is larger than 64 KiB.');
export const unsupportedMediaType = () => badRequest(PROBLEMS.unsupportedMediaType, 'Send the request body as application/json.');
export const malformedRequest = () => badRequest(PROBLEMS.requestMalformed, 'The request is malformed.');
/** A router refusal of the URL: 414 for an over-long parameter, otherwise the framework's status (400). */
export const malformedUrl = (status = 400) =>
  status === 414
    ? badRequest(PROBLEMS.uriTooLong, 'The request URL is malformed or too long.')
    : new AppError(PROBLEMS.malformedUrl, 'The request URL is malformed or too long.', status === 400 ? {} : { status });

/** A GraphQL error of the client's own (syntax, validation, coercion, limits) with a catalog code: the entry it stands for. */
const GRAPHQL_PROBLEM: Record<ErrorCode, ProblemType> = {
  BAD_REQUEST: PROBLEMS.graphqlInvalid,
  UNAUTHENTICATED: PROBLEMS.signInRequired,
  FORBIDDEN: PROBLEMS.scopeInsufficient,
  REAUTH_REQUIRED: PROBLEMS.reauthRequired,
  NOT_FOUND: PROBLEMS.notFound,
  CONFLICT: PROBLEMS.graphqlInvalid,
  RATE_LIMITED: PROBLEMS.rateLimited,
  UNAVAILABLE: PROBLEMS.internalError,
};

/** The catalog entry of a GraphQL error that is not an AppError (Yoga's, graphql-js's, the armor's). */
export const graphqlProblem = (code: unknown): ProblemType => (isErrorCode(code) ? GRAPHQL_PROBLEM[code] : PROBLEMS.graphqlInvalid);

export function classifyError(err: unknown): Classified {
  const original = err instanceof GraphQLError ? err.originalError : err;
  if (original instanceof AppError) return { error: original, internal: false };
  if (err instanceof GraphQLError && (!original || original instanceof GraphQLError)) {
    return { error: new AppError(graphqlProblem(err.extensions?.code), err.message), internal: false };
  }
  const statusCode = (original as { statusCode?: unknown } | null | undefined)?.statusCode;
  if (statusCode === 413) return { error: bodyTooLarge(), internal: false };
  if (statusCode === 415) return { error: unsupportedMediaType(), internal: false };
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) return { error: malformedRequest(), internal: false };
  return { error: internalError(), internal: true };
}

/**
 * The challenge of a 401 on a signed-in path (RFC 6750 section 3, API.md section 13a): when the
 * request presented a bearer token, the token is why (`invalid_token`: expired, revoked, unknown);
 * without one, the bare scheme, with no error code (section 3.1). Browsers prompt only for
 * Basic-like schemes, so a cookie-only page that meets it behaves as before.
 */
export const bearerChallenge = (presentedBearer: boolean): string => (presentedBearer ? 'Bearer error="invalid_token"' : 'Bearer');

/** What a 401 of a signed-in path says when a bearer token was presented: the token is why. */
export const INVALID_TOKEN_DETAIL = 'The token is invalid or has expired. Sign in again, or use a valid token.';

/**
 * The 401 of a signed-in path (REST and GraphQL alike): a presented bearer token that did not
 * authenticate (malformed, unknown, expired, revoked) is named as the reason; a request without
 * one is asked to sign in.
 */
export const signInRequired = (presentedBearer: boolean): AppError =>
  presentedBearer ? unauthenticated(PROBLEMS.invalidToken, INVALID_TOKEN_DETAIL) : notSignedIn();
