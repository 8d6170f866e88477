// Yoga's maskError: every error leaves with extensions.code and extensions.type (the problem type's
// URI under BASE_URL) from the catalog, classified by the
// same function the REST shim and the HTTP handlers use, and extensions.field naming the argument
// an invalid value was given for (a form shows the message beside it).
import { GraphQLError } from 'graphql';
import { problemTypeUri } from '../../domain/problems.js';
import { classifyError } from '../errors.js';

export function maskError(error: unknown, baseUrl: string): GraphQLError {
  const { error: e } = classifyError(error);
  const gqlError = error instanceof GraphQLError ? error : null;
  return new GraphQLError(e.message, {
    ...(gqlError?.nodes ? { nodes: gqlError.nodes } : {}),
    ...(gqlError?.path ? { path: gqlError.path } : {}),
    extensions: {
      code: e.code,
      type: problemTypeUri(baseUrl, e.problem),
      ...(e.extra.field !== undefined ? { field: e.extra.field } : {}),
      ...(e.extra.retryAfterSeconds !== undefined ? { retryAfter: e.extra.retryAfterSeconds } : {}),
    },
  });
}
