// Errors of the domain: an AppError carries its entry of the problem catalog (problems.ts: slug,
// code, status) and a message for people. src/adapters/errors.ts classifies every failure (these,
// GraphQL's own, the HTTP framework's, internal faults) for both surfaces: GraphQL puts `code` and
// `type` in extensions, REST and the raw handlers answer problem+json with `status`.
import { ERROR_STATUS, PROBLEMS, type ErrorCode, type OAuthProblemType, type ProblemType } from './problems.js';

export { ERROR_STATUS, PROBLEMS, type ErrorCode, type OAuthProblemType, type ProblemType } from './problems.js';

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
    readonly problem: ProblemType,
    message: string,
    /**
     * `status` overrides the entry's status where the framework chose a finer one.
     * `field` is the input the error is about, named as the operation's argument in the GraphQL
     * schema (`allowedEmails`): GraphQL answers it in extensions.field, REST as the body member
     * it maps to, so a form shows the message beside that field.
     */
    readonly extra: { retryAfterSeconds?: number; status?: number; field?: string } = {},
  ) {
    super(message);
    this.name = 'AppError';
  }

  get code(): ErrorCode {
    return this.problem.code;
  }

  get status(): number {
    return this.extra.status ?? this.problem.status;
  }
}

export const isErrorCode = (v: unknown): v is ErrorCode => typeof v === 'string' && Object.hasOwn(ERROR_STATUS, v);

// One helper per code: the entry's code must be the helper's (checked by the compiler).
export const badRequest = (problem: ProblemType<'BAD_REQUEST'>, message: string) => new AppError(problem, message);
export const unauthenticated = (problem: ProblemType<'UNAUTHENTICATED'>, message = 'Sign in to continue.') => new AppError(problem, message);
export const forbidden = (problem: ProblemType<'FORBIDDEN'>, message: string) => new AppError(problem, message);
export const notFound = (problem: ProblemType<'NOT_FOUND'>, message = 'Not found.') => new AppError(problem, message);
export const conflict = (problem: ProblemType<'CONFLICT'>, message: string, field?: string) =>
  new AppError(problem, message, field === undefined ? {} : { field });
/** A value given for one input breaks its rules: the message names it in a person's words. */
export const invalidInput = (problem: ProblemType<'BAD_REQUEST'>, field: string, message: string) => new AppError(problem, message, { field });
export const rateLimited = (problem: ProblemType<'RATE_LIMITED'>, retryAfterSeconds: number, message = 'Too many attempts. Try again later.') =>
  new AppError(problem, message, { retryAfterSeconds });
export const unavailable = (problem: ProblemType<'UNAVAILABLE'>, message: string) => new AppError(problem, message);
/** An OAuth endpoint's refusal, answered as `{error, error_description}` (the entry names `error`). */
export const oauthError = (problem: OAuthProblemType, description: string, retryAfterSeconds?: number) =>
  new AppError(problem, description, retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) as OAuthAppError;

export type OAuthAppError = AppError & { readonly problem: OAuthProblemType };
export const isOAuthError = (err: unknown): err is OAuthAppError =>
  err instanceof AppError && err.problem.oauthError !== undefined;

// Messages that more than one flow answers with.
export const notSignedIn = () => unauthenticated(PROBLEMS.signInRequired);
export const noSuchTunnel = () => notFound(PROBLEMS.tunnelNotFound, 'No such tunnel.');
export const noSuchSession = () => notFound(PROBLEMS.sessionNotFound, 'No such session.');
export const verifyAddressFirst = () => forbidden(PROBLEMS.emailUnverified, 'Verify your email address first.');
export const reauthRequired = () =>
  new AppError(PROBLEMS.reauthRequired, 'Confirm it is you: re-authenticate (password, code or passkey), then try again.');
export const emailTaken = () => conflict(PROBLEMS.emailTaken, 'An account with this email already exists.', 'email');
export const invalidConfirmationLink = () => badRequest(PROBLEMS.invalidLink, 'This confirmation link is invalid or has expired.');
export const wrongCredentials = () => unauthenticated(PROBLEMS.wrongCredentials, 'Incorrect email or password.');

/** What every internal fault becomes on the wire: status 500, code UNAVAILABLE, nothing leaked. */
export const INTERNAL_MESSAGE = 'Something went wrong on our side. Try again later.';
export const internalError = () => unavailable(PROBLEMS.internalError, INTERNAL_MESSAGE);
