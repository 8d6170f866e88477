// Routes of the tunnels area that are not GraphQL operations: PUT /internal/tunnels/<id>/tools,
// called by the edge with INTERNAL_API_TOKEN. Without the token configured the route does not
// exist, so /internal/* answers 404 like any unknown path.
import type { FastifyInstance } from 'fastify';
import { sameSecret } from '../../../infra/crypto/tokens.js';
import type { Deps } from '../../../deps.js';
import { unauthenticated } from '../../../domain/errors.js';
import { pinTools } from '../../../domain/tunnels/pinned-tools.js';

/** Constant-time comparison of `Authorization: Bearer <token>` with the configured token. */
export function hasInternalToken(header: string | undefined, expected: string): boolean {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m !== null && sameSecret(m[1]!, expected);
}

export function registerTunnelRoutes(app: FastifyInstance, deps: Deps): void {
  const token = deps.config.internalApiToken;
  if (!token) return;
  app.put<{ Params: { id: string } }>('/internal/tunnels/:id/tools', async (req, reply) => {
    if (!hasInternalToken(req.headers.authorization, token)) throw unauthenticated('The internal API token is required.');
    await pinTools(deps, req.params.id, req.body);
    return reply.status(204).send();
  });
}
