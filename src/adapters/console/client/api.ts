/// <reference lib="dom" />
// The console's only way to the server: POST /graphql with the session cookie (same origin,
// JSON). Errors come back as ApiError with the catalog code (API.md section 3).

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

interface GraphQLBody<T> {
  data?: T | null;
  errors?: { message: string; extensions?: { code?: string; retryAfter?: number } }[];
}

export async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables }),
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
  if (first) throw new ApiError(first.message, first.extensions?.code ?? 'BAD_REQUEST', first.extensions?.retryAfter);
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
