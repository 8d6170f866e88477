// Routes of the tunnels area that are not GraphQL operations (PUT /internal/tunnels/<id>/tools);
// filled by the tunnels work.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

export function registerTunnelRoutes(_app: FastifyInstance, _deps: Deps): void {}
