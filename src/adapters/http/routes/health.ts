// Liveness and readiness on the API host: /healthz answers while the process does; /readyz only
// while the database and the cache answer too. A plain GET or HEAD /healthz never reaches
// Fastify (server.ts answers it raw, as on the zone host); this route answers the rest (a query
// string, another method's 404 comes from Fastify as for any path).
import type { FastifyInstance } from 'fastify';
import { unavailable } from '../../../domain/errors.js';
import { checkReadiness, type ReadinessDeps } from '../../../domain/status/readiness.js';

export function registerHealthRoutes(app: FastifyInstance, deps: ReadinessDeps): void {
  app.get('/healthz', async (_req, reply) => reply.type('text/plain; charset=utf-8').send('ok'));
  app.get('/readyz', async (_req, reply) => {
    const readiness = await checkReadiness(deps);
    if (!readiness.ready) {
      const down = Object.entries(readiness.checks)
        .filter(([, outcome]) => outcome !== 'ok')
        .map(([name]) => name);
      throw unavailable(`Not ready: ${down.join(' and ')} unreachable.`);
    }
    return reply.header('cache-control', 'no-store').send({ status: 'ready', checks: readiness.checks });
  });
}
