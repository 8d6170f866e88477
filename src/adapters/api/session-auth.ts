// Who is calling: the `session` cookie (dashboard) or `Authorization: Bearer` (API clients: a
// session token, or a `tsk_` service token with its scopes), validated once per request, through
// the same credential cache, as soon as the request arrives: before its body is read or parsed,
// so a signed-in path can refuse a stranger with 401 whatever the body (rest/mount.ts). A
// cookie-authenticated cross-site write is refused before that (cors.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ClientInfo, Viewer } from '../../domain/context.js';
import { validateSessionToken, type SessionDeps, type ValidSession } from '../../domain/sessions/session.js';
import { validateSessionWithView, type AccountView } from '../../domain/accounts/account-view.js';
import { isServiceTokenLike } from '../../domain/tokens/format.js';
import { validateServiceToken } from '../../domain/tokens/token-check.js';
import type { Config } from '../../infra/config.js';
import { bearerToken } from './bearer.js';
import { clientIp } from '../client-ip.js';
import { assertSameSiteWrite } from './cors.js';

declare module 'fastify' {
  interface FastifyRequest {
    viewer: Viewer | null;
    credentialVia: 'cookie' | 'bearer' | null;
    /** The account view, when it was read with the session (a route that shows the account: `accountView` in its config). */
    accountView: AccountView | null;
  }
  interface FastifyContextConfig {
    /** The route shows the signed-in account: a session not cached is read with the view, in one statement. */
    accountView?: boolean;
  }
}

type CookieConfig = Pick<Config, 'secureCookies'>;

/**
 * Over https every cookie carries the `__Host-` prefix: the browser then accepts it only when
 * Secure, for Path=/ and without Domain, so a sibling subdomain (a tunnel host!) cannot plant
 * or shadow it.
 */
export const cookieName = (base: string, config: CookieConfig) => (config.secureCookies ? `__Host-${base}` : base);

export const sessionCookieName = (config: CookieConfig) => cookieName('session', config);

export interface Credential {
  token: string;
  via: 'cookie' | 'bearer';
}

export function readCredential(req: FastifyRequest, config: CookieConfig): Credential | null {
  const token = bearerToken(req.headers.authorization);
  if (token !== null) return { token, via: 'bearer' };
  const cookie = req.cookies?.[sessionCookieName(config)];
  return cookie ? { token: cookie, via: 'cookie' } : null;
}

/** Who is calling; with `withView`, a session not cached comes with the account's view (`view.value`). */
export async function authenticate(deps: SessionDeps, credential: Credential | null, ip: string, view?: { value: AccountView | null }): Promise<Viewer | null> {
  if (!credential) return null;
  if (isServiceTokenLike(credential.token)) {
    // Service tokens are for API clients: never a cookie.
    if (credential.via !== 'bearer') return null;
    const token = await validateServiceToken(deps, credential.token, ip);
    if (!token) return null;
    return { accountId: token.accountId, sessionId: `token:${token.id}`, tokenHash: token.tokenHash, authenticatedAt: 0, scopes: token.scopes };
  }
  let session: ValidSession | null | undefined;
  if (view) {
    const read = await validateSessionWithView(deps, credential.token);
    session = read?.session;
    view.value = read?.view ?? null;
  } else session = await validateSessionToken(deps, credential.token);
  if (!session) return null;
  return { accountId: session.accountId, sessionId: session.id, tokenHash: session.tokenHash, authenticatedAt: session.authenticatedAt, scopes: null };
}

export function registerSessionAuth(app: FastifyInstance, deps: SessionDeps & { config: Pick<Config, 'allowedOrigins' | 'secureCookies'> }): void {
  app.decorateRequest('viewer', null);
  app.decorateRequest('credentialVia', null);
  app.decorateRequest('accountView', null);
  // onRequest, not preHandler: the body is parsed between the two, and a malformed or non-JSON
  // body must not answer 400/415 before the missing credential answers 401.
  app.addHook('onRequest', async (req) => {
    const credential = readCredential(req, deps.config);
    req.credentialVia = credential?.via ?? null;
    assertSameSiteWrite(req, deps.config, req.credentialVia);
    if (req.routeOptions.config?.accountView === true) {
      const view = { value: null as AccountView | null };
      req.viewer = await authenticate(deps, credential, credential ? clientIp(req) : '', view);
      req.accountView = view.value;
    } else req.viewer = await authenticate(deps, credential, credential ? clientIp(req) : '');
  });
}

export function clientInfo(req: FastifyRequest): ClientInfo {
  const ua = req.headers['user-agent'];
  return { ip: clientIp(req), userAgent: typeof ua === 'string' ? ua.slice(0, 512) : '' };
}

export function setSessionCookie(reply: FastifyReply, config: CookieConfig, token: string, expiresAt: Date): void {
  reply.setCookie(sessionCookieName(config), token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: config.secureCookies,
    expires: expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply, config: CookieConfig): void {
  reply.clearCookie(sessionCookieName(config), { httpOnly: true, sameSite: 'lax', path: '/', secure: config.secureCookies });
}
