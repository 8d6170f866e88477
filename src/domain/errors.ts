// The one catalog of error codes (API.md section 3) and of the messages used in more than one
// place. Domain code throws AppError; src/adapters/errors.ts classifies every failure (these,
// GraphQL's own, the HTTP framework's, internal faults) for both surfaces: GraphQL puts `code` in
// extensions.code, REST and the raw handlers answer problem+json with `status`.

export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  /** A recently authenticated session is needed (API.md section 7a). */
  REAUTH_REQUIRED: 403,
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
  REAUTH_REQUIRED: 'Forbidden',
  NOT_FOUND: 'Not Found',
  CONFLICT: 'Conflict',
  RATE_LIMITED: 'Too Many Requests',
  UNAVAILABLE: 'Service Unavailable',
};

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /**
     * `status` overrides the code's status where HTTP needs a finer one (405, 413, 500, 502).
     * `field` is the input the error is about, named as the operation's argument in the GraphQL
     * schema (`allowedEmails`): GraphQL answers it in extensions.field, REST as the body member
     * it maps to, so a form shows the message beside that field.
     */
    readonly extra: { retryAfterSeconds?: number; status?: number; field?: string } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return this.extra.status ?? ERROR_STATUS[this.code];
  }
}

export const isErrorCode = (v: unknown): v is ErrorCode => typeof v === 'string' && Object.hasOwn(ERROR_STATUS, v);

export const badRequest = (message: string, status?: number) =>
  new AppError('BAD_REQUEST', message, status === undefined ? {} : { status });
export const unauthenticated = (message = 'Sign in to continue.') => new AppError('UNAUTHENTICATED', message);
export const forbidden = (message: string) => new AppError('FORBIDDEN', message);
export const notFound = (message = 'Not found.') => new AppError('NOT_FOUND', message);
export const conflict = (message: string, field?: string) => new AppError('CONFLICT', message, field === undefined ? {} : { field });
/** A value given for one input breaks its rules: the message names it in a person's words. */
export const invalidInput = (field: string, message: string) => new AppError('BAD_REQUEST', message, { field });
export const rateLimited = (retryAfterSeconds: number, message = 'Too many attempts. Try again later.') =>
  new AppError('RATE_LIMITED', message, { retryAfterSeconds });
export const unavailable = (message: string, status?: number) =>
  new AppError('UNAVAILABLE', message, status === undefined ? {} : { status });

// Messages that more than one flow answers with.
export const noSuchTunnel = () => notFound('No such tunnel.');
export const noSuchSession = () => notFound('No such session.');
export const verifyAddressFirst = () => forbidden('Verify your email address first.');
export const reauthRequired = () =>
  new AppError('REAUTH_REQUIRED', 'Confirm it is you: re-authenticate (password, code or passkey), then try again.');
export const emailTaken = () => conflict('An account with this email already exists.', 'email');
export const invalidConfirmationLink = () => badRequest('This confirmation link is invalid or has expired.');
export const wrongCredentials = () => new AppError('UNAUTHENTICATED', 'Incorrect email or password.');

/** What every internal fault becomes on the wire: status 500, code UNAVAILABLE, nothing leaked. */
export const INTERNAL_MESSAGE = 'Something went wrong on our side. Try again later.';
export const internalError = () => unavailable(INTERNAL_MESSAGE, 500);
