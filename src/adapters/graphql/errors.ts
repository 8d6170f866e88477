// Yoga's maskError: every error leaves with extensions.code from the catalog, classified by the
// same function the REST shim and the HTTP handlers use, and extensions.field naming the argument
// an invalid value was given for (a form shows the message beside it).
import { GraphQLError } from 'graphql';
import { classifyError } from '../errors.js';

export function maskError(error: unknown): GraphQLError {
  const { error: e } = classifyError(error);
  const gqlError = error instanceof GraphQLError ? error : null;
  return new GraphQLError(e.message, {
    ...(gqlError?.nodes ? { nodes: gqlError.nodes } : {}),
    ...(gqlError?.path ? { path: gqlError.path } : {}),
    extensions: {
      code: e.code,
      ...(e.extra.field !== undefined ? { field: e.extra.field } : {}),
      ...(e.extra.retryAfterSeconds !== undefined ? { retryAfter: e.extra.retryAfterSeconds } : {}),
    },
  });
}
