// Who is calling: the `session` cookie (dashboard) or `Authorization: Bearer` (API clients),
// both validated by the same session check.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ClientInfo, Viewer } from '../../domain/context.js';
import type { Config } from '../../infra/config.js';
import { validateSessionToken, type SessionDeps } from '../../domain/sessions/session.js';

export const SESSION_COOKIE = 'session';

export interface Credential {
  token: string;
  via: 'cookie' | 'bearer';
}

export function readCredential(req: FastifyRequest): Credential | null {
  const auth = req.headers.authorization;
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (m) return { token: m[1]!, via: 'bearer' };
  }
  const cookie = req.cookies?.[SESSION_COOKIE];
  return cookie ? { token: cookie, via: 'cookie' } : null;
}

export async function authenticate(deps: SessionDeps, credential: Credential | null): Promise<Viewer | null> {
  if (!credential) return null;
  const session = await validateSessionToken(deps, credential.token);
  return session ? { accountId: session.accountId, sessionId: session.id, tokenHash: session.tokenHash } : null;
}

export function clientInfo(req: FastifyRequest): ClientInfo {
  const ua = req.headers['user-agent'];
  return { ip: req.ip, userAgent: typeof ua === 'string' ? ua.slice(0, 512) : '' };
}

export function setSessionCookie(reply: FastifyReply, config: Config, token: string, expiresAt: Date): void {
  reply.setCookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: config.secureCookies,
    expires: expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply, config: Config): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: config.secureCookies });
}
