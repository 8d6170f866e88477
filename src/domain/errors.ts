// The one catalog of error codes (API.md section 3). Domain code throws AppError; the GraphQL
// adapter puts `code` in extensions.code and the REST shim turns it into problem+json with the
// status below, so both surfaces answer the same thing for the same input.

export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_TITLE: Record<ErrorCode, string> = {
  BAD_REQUEST: 'Bad Request',
  UNAUTHENTICATED: 'Unauthorized',
  FORBIDDEN: 'Forbidden',
  NOT_FOUND: 'Not Found',
  CONFLICT: 'Conflict',
  RATE_LIMITED: 'Too Many Requests',
  UNAVAILABLE: 'Service Unavailable',
};

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { retryAfterSeconds?: number; status?: number } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return this.extra.status ?? ERROR_STATUS[this.code];
  }
}

export const isErrorCode = (v: unknown): v is ErrorCode => typeof v === 'string' && v in ERROR_STATUS;

export const badRequest = (message: string) => new AppError('BAD_REQUEST', message);
export const unauthenticated = (message = 'Sign in to continue.') => new AppError('UNAUTHENTICATED', message);
export const notFound = (message = 'Not found.') => new AppError('NOT_FOUND', message);
export const conflict = (message: string) => new AppError('CONFLICT', message);
export const rateLimited = (retryAfterSeconds: number, message = 'Too many attempts. Try again later.') =>
  new AppError('RATE_LIMITED', message, { retryAfterSeconds });
