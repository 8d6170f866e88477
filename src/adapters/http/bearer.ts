// `Authorization: Bearer <token>`: read once here for sessions, the internal API and /metrics.
import { sameSecret } from '../../infra/crypto/tokens.js';

export function bearerToken(header: string | undefined): string | null {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m ? m[1]! : null;
}

/** Constant-time check of the presented bearer token against a configured secret. */
export function hasBearer(header: string | undefined, expected: string): boolean {
  const token = bearerToken(header);
  return token !== null && sameSecret(token, expected);
}
