// One mapping from any error a GraphQL execution can produce to the catalog of src/errors.ts:
// AppError keeps its code; errors without an original error are the client's (syntax,
// validation, variable coercion, depth and cost limits) and become BAD_REQUEST; anything else is
// an internal fault, masked.
import { GraphQLError } from 'graphql';
import { AppError, ERROR_STATUS, type ErrorCode, isErrorCode } from '../../domain/errors.js';

export interface ClassifiedError {
  code: ErrorCode | 'INTERNAL';
  status: number;
  message: string;
  retryAfterSeconds?: number;
}

export const INTERNAL_MESSAGE = 'Something went wrong on our side. Try again later.';

export function classifyError(error: unknown): ClassifiedError {
  const original = error instanceof GraphQLError ? error.originalError : error;
  if (original instanceof AppError) {
    return {
      code: original.code,
      status: original.status,
      message: original.message,
      ...(original.extra.retryAfterSeconds !== undefined ? { retryAfterSeconds: original.extra.retryAfterSeconds } : {}),
    };
  }
  if (error instanceof GraphQLError && (!original || original instanceof GraphQLError)) {
    const code = error.extensions?.code;
    if (isErrorCode(code)) return { code, status: ERROR_STATUS[code], message: error.message };
    return { code: 'BAD_REQUEST', status: 400, message: error.message };
  }
  return { code: 'INTERNAL', status: 500, message: INTERNAL_MESSAGE };
}

/** Yoga's maskError: every error leaves with extensions.code from the catalog. */
export function maskError(error: unknown): GraphQLError {
  const c = classifyError(error);
  const gqlError = error instanceof GraphQLError ? error : null;
  return new GraphQLError(c.message, {
    ...(gqlError?.nodes ? { nodes: gqlError.nodes } : {}),
    ...(gqlError?.path ? { path: gqlError.path } : {}),
    extensions: {
      // The catalog has no INTERNAL: a masked fault answers UNAVAILABLE, as problem+json does.
      code: c.code === 'INTERNAL' ? 'UNAVAILABLE' : c.code,
      ...(c.retryAfterSeconds !== undefined ? { retryAfter: c.retryAfterSeconds } : {}),
    },
  });
}
