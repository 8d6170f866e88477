// The error answers of the OAuth endpoints (RFC 6749 section 5.2, RFC 8628 section 3.5): a code
// from the RFCs' vocabulary and a sentence for people. The adapter answers them as
// `{error, error_description}` with status 400 (429 with Retry-After for a limit).
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'invalid_scope'
  | 'unsupported_grant_type'
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token'
  | 'temporarily_unavailable';

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}
