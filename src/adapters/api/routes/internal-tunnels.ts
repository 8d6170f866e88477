// Routes of the tunnels area that are not GraphQL operations: PUT /internal/tunnels/<id>/tools,
// called by the edge with INTERNAL_API_TOKEN. Without the token configured the route does not
// exist, so /internal/* answers 404 like any unknown path.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pinTools } from '../../../domain/tunnels/pinned-tools.js';
import type { TunnelsDeps } from '../../../domain/tunnels/tunnels.js';
import { requireInternalToken } from '../bearer.js';
import { BODY_OVER_64K, INTERNAL_TOKEN_REQUIRED, NOT_JSON, pathParameter, problem, SERVER_FAULT, type RawPaths } from '../../openapi-paths.js';

/** What the edge sends: its tools/list result (other members are ignored). */
const ToolsList = z.object({ tools: z.array(z.object({ name: z.string() })) });

export function registerInternalTunnelRoutes(app: FastifyInstance, deps: TunnelsDeps, internalApiToken: string | null): void {
  if (!internalApiToken) return;
  app.put<{ Params: { id: string } }>('/internal/tunnels/:id/tools', { onRequest: requireInternalToken(internalApiToken) }, async (req, reply) => {
    await pinTools(deps, req.params.id, req.body);
    return reply.status(204).send();
  });
}

export const internalTunnelPaths: RawPaths = {
  '/internal/tunnels/{id}/tools': {
    put: {
      operationId: 'pinTunnelTools',
      summary: "The edge reports a tunnel's tools/list result; the names are pinned in order, duplicates dropped.",
      tags: ['Tunnels'],
      security: [{ internalToken: [] }],
      parameters: [pathParameter('id')],
      requestBody: { required: true, content: { 'application/json': ToolsList } },
      responses: {
        '204': { description: 'Pinned.' },
        '400': problem('Not a tools/list result.'),
        '401': INTERNAL_TOKEN_REQUIRED,
        '404': problem('Unknown tunnel, or INTERNAL_API_TOKEN is not configured.'),
        '413': BODY_OVER_64K,
        '415': NOT_JSON,
        '5XX': SERVER_FAULT,
      },
    },
  },
};
