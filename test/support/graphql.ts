// GraphQL over HTTP for tests: one operation POSTed to /graphql, and the catalog code of its
// first error (extensions.code, the GraphQL side of assertProblem).
import type { Reply, RequestOptions } from './http.js';
import { assertProblemType } from './problem.js';
import type { Server } from './server.js';

export function gql(s: Server, query: string, variables: Record<string, unknown> = {}, opts: RequestOptions = {}): Promise<Reply> {
  return s.request('/graphql', { method: 'POST', ...opts, body: { query, variables } });
}

/**
 * extensions.code of the first GraphQL error (null when the operation succeeded); every error
 * carries the problem type of its code in extensions.type, as a REST problem does.
 */
export function gqlCode(r: Reply): string | null {
  for (const e of (r.json?.errors ?? []) as { message: string; extensions?: { code?: string; type?: unknown } }[]) {
    assertProblemType(e.extensions?.type, null, String(e.extensions?.code), `GraphQL error "${e.message}"`);
  }
  return r.json?.errors?.[0]?.extensions?.code ?? null;
}
