// GraphQL over HTTP for tests: one operation POSTed to /graphql, and the catalog code of its
// first error (extensions.code, the GraphQL side of assertProblem).
import type { Reply, RequestOptions } from './http.js';
import type { Server } from './server.js';

export function gql(s: Server, query: string, variables: Record<string, unknown> = {}, opts: RequestOptions = {}): Promise<Reply> {
  return s.request('/graphql', { method: 'POST', ...opts, body: { query, variables } });
}

/** extensions.code of the first GraphQL error (null when the operation succeeded). */
export function gqlCode(r: Reply): string | null {
  return r.json?.errors?.[0]?.extensions?.code ?? null;
}
