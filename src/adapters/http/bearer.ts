// `Authorization: Bearer <token>`: read once here for sessions, the internal API and /metrics.
import type { FastifyRequest } from 'fastify';
import { sameSecret } from '../../infra/crypto/tokens.js';
import { unauthenticated } from '../../domain/errors.js';

export function bearerToken(header: string | undefined): string | null {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m ? m[1]! : null;
}

/**
 * The challenge of a 401 on a signed-in path (RFC 6750 section 3, API.md section 13a): when the
 * request presented a bearer token, the token is why (`invalid_token`: expired, revoked, unknown);
 * without one, the bare scheme, with no error code (section 3.1). Browsers prompt only for
 * Basic-like schemes, so a cookie-only page that meets it behaves as before.
 */
export const bearerChallenge = (presentedBearer: boolean): string => (presentedBearer ? 'Bearer error="invalid_token"' : 'Bearer');

/** Constant-time check of the presented bearer token against a configured secret. */
export function hasBearer(header: string | undefined, expected: string): boolean {
  const token = bearerToken(header);
  return token !== null && sameSecret(token, expected);
}

/**
 * The onRequest hook of the internal API (INTERNAL_API_TOKEN): the token is decided before the
 * body is read, so a request without it answers 401 whatever it sent.
 */
export function requireInternalToken(expected: string): (req: FastifyRequest) => Promise<void> {
  return async (req) => {
    if (!hasBearer(req.headers.authorization, expected)) throw unauthenticated('The internal API token is required.');
  };
}
