/// <reference lib="dom" />
// The console's only way to the server: POST /graphql with the session cookie (same origin,
// JSON), each operation a typed document. Errors come back as ApiError with the catalog code
// and, for an error about one input, the argument it names (extensions.field), so a form can show
// the message beside that field (forms.ts).
import { print } from '@0no-co/graphql.web';
import type { TadaDocumentNode } from 'gql.tada';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly retryAfter?: number,
    /** The operation's argument the error is about (`allowedEmails`), when it is about one. */
    readonly field?: string,
  ) {
    super(message);
  }
}

interface GraphQLBody<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string; retryAfter?: number; field?: string } }[];
}

const printed = new WeakMap<object, string>();

/**
 * Runs a typed document (src/adapters/graphql/documents.ts: the same gql.tada documents as the
 * REST table): its variables and its answer are typed from the schema.
 */
export async function gql<T, V>(document: TadaDocumentNode<T, V>, ...[variables]: Record<string, never> extends V ? [V?] : [V]): Promise<T> {
  let query = printed.get(document);
  if (query === undefined) printed.set(document, (query = print(document)));
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables: variables ?? {} }),
    });
  } catch {
    throw new ApiError('The service could not be reached. Check your connection and try again.', 'NETWORK');
  }
  let body: GraphQLBody<T>;
  try {
    body = (await res.json()) as GraphQLBody<T>;
  } catch {
    throw new ApiError(`The service answered unexpectedly (HTTP ${res.status}). Try again.`, 'UNAVAILABLE');
  }
  const first = body.errors?.[0];
  if (first) throw new ApiError(first.message, first.extensions?.code ?? 'BAD_REQUEST', first.extensions?.retryAfter, first.extensions?.field);
  if (!body.data) throw new ApiError(`The service answered unexpectedly (HTTP ${res.status}). Try again.`, 'UNAVAILABLE');
  return body.data;
}

/** "about 3 minutes" from a Retry-After in seconds. */
export function waitText(seconds: number | undefined): string {
  if (!seconds || seconds <= 60) return 'in a minute';
  const minutes = Math.ceil(seconds / 60);
  return minutes < 90 ? `in about ${minutes} minutes` : `in about ${Math.ceil(minutes / 60)} hours`;
}

/** The message a person reads for an error: the server's detail, kinder for limits. */
export function explain(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === 'RATE_LIMITED') return `Too many attempts for now. Please try again ${waitText(err.retryAfter)}.`;
    return err.message;
  }
  return 'Something went wrong. Try again.';
}
