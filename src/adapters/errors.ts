// Every failure, classified once for every surface: an AppError keeps its code and status;
// GraphQL's own errors (syntax, validation, variable coercion, depth and cost limits) and the HTTP
// framework's 4xx refusals are the client's and become BAD_REQUEST; anything else is an internal
// fault, answered as UNAVAILABLE with status 500 and a fixed message (and logged by the caller).
import { GraphQLError } from 'graphql';
import { AppError, badRequest, internalError, isErrorCode, unauthenticated } from '../domain/errors.js';

export const BODY_LIMIT = 64 * 1024;

export interface Classified {
  error: AppError;
  /** An internal fault: the caller logs the original, the client sees only `error`. */
  internal: boolean;
}

export const bodyTooLarge = () => badRequest('The request body is larger than 64 KiB.', 413);
export const unsupportedMediaType = () => badRequest('Send the request body as application/json.', 415);
export const malformedRequest = () => badRequest('The request is malformed.');
export const malformedUrl = (status = 400) => badRequest('The request URL is malformed or too long.', status);

export function classifyError(err: unknown): Classified {
  const original = err instanceof GraphQLError ? err.originalError : err;
  if (original instanceof AppError) return { error: original, internal: false };
  if (err instanceof GraphQLError && (!original || original instanceof GraphQLError)) {
    const code = err.extensions?.code;
    return { error: new AppError(isErrorCode(code) ? code : 'BAD_REQUEST', err.message), internal: false };
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
  presentedBearer ? new AppError('UNAUTHENTICATED', INVALID_TOKEN_DETAIL) : unauthenticated();
