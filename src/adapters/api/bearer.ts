// `Authorization: Bearer <token>`: read once here for sessions, the internal API and /metrics.
import type { FastifyRequest } from 'fastify';
import { sameSecret } from '../../infra/crypto/tokens.js';
import { PROBLEMS, unauthenticated } from '../../domain/errors.js';

export function bearerToken(header: string | undefined): string | null {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m ? m[1]! : null;
}

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
    if (!hasBearer(req.headers.authorization, expected)) throw unauthenticated(PROBLEMS.internalTokenRequired, 'The internal API token is required.');
  };
}
