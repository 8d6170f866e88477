// CORS and cross-site write protection on the API host (API.md section 3): origins listed in
// ALLOWED_ORIGINS get credentialed CORS; a write from any other Origin is refused with 403,
// whether or not it carries the session cookie (a cross-site form must neither act as the user
// nor sign the browser in as someone else). Bearer requests carry no ambient credential and are
// not subject to it; requests without Origin (non-browser clients) pass.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../infra/config.js';
import { forbidden, PROBLEMS } from '../../domain/errors.js';

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/**
 * The OAuth protocol endpoints (API.md sections 12 and 13: token, registration, revocation,
 * device authorization, introspection, JWKS) read no cookie and are called by MCP clients that may
 * run in a browser on any origin: public CORS (`*`, no credentials), and no same-site rule, since
 * no ambient credential can be abused there. The consent API stays under /api (same-site rules).
 */
export const isOAuthProtocolPath = (url: string | undefined): boolean =>
  url !== undefined && ((url.startsWith('/oauth/') && !url.startsWith('/oauth/authorize')) || url.startsWith('/.well-known/oauth-authorization-server'));

/** What MCP clients send to the protocol endpoints and metadata documents (section 13a). */
const PROTOCOL_HEADERS = 'Content-Type, Authorization, MCP-Protocol-Version';

export function assertSameSiteWrite(req: FastifyRequest, config: Pick<Config, 'allowedOrigins'>, via: 'cookie' | 'bearer' | null): void {
  if (via === 'bearer' || !WRITE_METHODS.has(req.method) || isOAuthProtocolPath(req.url)) return;
  const origin = req.headers.origin;
  if (origin !== undefined && !config.allowedOrigins.has(origin)) {
    throw forbidden(PROBLEMS.crossSiteRefused, 'Cross-site request refused: this origin may not make changes here.');
  }
}

function applyCors(req: FastifyRequest, reply: FastifyReply, config: Pick<Config, 'allowedOrigins'>): boolean {
  const origin = req.headers.origin;
  if (origin && isOAuthProtocolPath(req.url)) {
    reply.header('access-control-allow-origin', '*');
    return true;
  }
  if (!origin || !config.allowedOrigins.has(origin)) return false;
  reply.header('access-control-allow-origin', origin);
  reply.header('access-control-allow-credentials', 'true');
  reply.header('vary', 'Origin');
  return true;
}

export function registerCors(app: FastifyInstance, config: Pick<Config, 'allowedOrigins'>): void {
  app.addHook('onRequest', async (req, reply) => {
    applyCors(req, reply, config);
  });
  app.options('*', async (req, reply) => {
    if (req.headers.origin && isOAuthProtocolPath(req.url)) {
      reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
      reply.header('access-control-allow-headers', PROTOCOL_HEADERS);
      reply.header('access-control-max-age', '600');
    } else if (req.headers.origin && config.allowedOrigins.has(req.headers.origin)) {
      reply.header('access-control-allow-methods', 'GET, POST, PATCH, PUT, DELETE, OPTIONS');
      reply.header('access-control-allow-headers', 'Content-Type, Authorization');
      reply.header('access-control-max-age', '600');
    }
    return reply.status(204).send();
  });
}
