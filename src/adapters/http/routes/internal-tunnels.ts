// Routes of the tunnels area that are not GraphQL operations: PUT /internal/tunnels/<id>/tools,
// called by the edge with INTERNAL_API_TOKEN. Without the token configured the route does not
// exist, so /internal/* answers 404 like any unknown path.
import type { FastifyInstance } from 'fastify';
import { pinTools } from '../../../domain/tunnels/pinned-tools.js';
import type { TunnelsDeps } from '../../../domain/tunnels/tunnels.js';
import { requireInternalToken } from '../bearer.js';

export function registerInternalTunnelRoutes(app: FastifyInstance, deps: TunnelsDeps, internalApiToken: string | null): void {
  if (!internalApiToken) return;
  app.put<{ Params: { id: string } }>('/internal/tunnels/:id/tools', { onRequest: requireInternalToken(internalApiToken) }, async (req, reply) => {
    await pinTools(deps, req.params.id, req.body);
    return reply.status(204).send();
  });
}
