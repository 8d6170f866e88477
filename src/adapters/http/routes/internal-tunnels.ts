// Routes of the tunnels area that are not GraphQL operations: PUT /internal/tunnels/<id>/tools,
// called by the edge with INTERNAL_API_TOKEN. Without the token configured the route does not
// exist, so /internal/* answers 404 like any unknown path.
import type { FastifyInstance } from 'fastify';
import { unauthenticated } from '../../../domain/errors.js';
import { pinTools } from '../../../domain/tunnels/pinned-tools.js';
import type { TunnelsDeps } from '../../../domain/tunnels/tunnels.js';
import { hasBearer } from '../bearer.js';

export function registerInternalTunnelRoutes(app: FastifyInstance, deps: TunnelsDeps, internalApiToken: string | null): void {
  if (!internalApiToken) return;
  app.put<{ Params: { id: string } }>('/internal/tunnels/:id/tools', async (req, reply) => {
    if (!hasBearer(req.headers.authorization, internalApiToken)) throw unauthenticated('The internal API token is required.');
    await pinTools(deps, req.params.id, req.body);
    return reply.status(204).send();
  });
}
