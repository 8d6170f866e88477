// Readiness on the API host: /readyz answers 200 only while the database and the cache answer.
// Liveness (GET or HEAD /healthz) never reaches Fastify: server.ts answers it raw on every host,
// with the zone handler's answer; other methods get Fastify's 404 as on any unknown route.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { PROBLEMS, unavailable } from '../../../domain/errors.js';
import { checkReadiness, type ReadinessDeps } from '../../../domain/status/readiness.js';
import { problem, type RawPaths } from '../../openapi-paths.js';

const Ready = z.object({ status: z.literal('ready'), checks: z.record(z.string(), z.string()) });

export function registerHealthRoutes(app: FastifyInstance, deps: ReadinessDeps): void {
  app.get('/readyz', async (_req, reply) => {
    const readiness = await checkReadiness(deps);
    if (!readiness.ready) {
      const down = Object.entries(readiness.checks)
        .filter(([, outcome]) => outcome !== 'ok')
        .map(([name]) => name);
      throw unavailable(PROBLEMS.notReady, `Not ready: ${down.join(' and ')} unreachable.`);
    }
    return reply.header('cache-control', 'no-store').send({ status: 'ready', checks: readiness.checks } satisfies z.infer<typeof Ready>);
  });
}

export const healthPaths: RawPaths = {
  '/readyz': {
    get: {
      operationId: 'readiness',
      summary: 'Ready while the database and the cache answer.',
      tags: ['Operations'],
      security: [],
      responses: { '200': { description: 'Ready.', content: { 'application/json': Ready } }, '503': problem('The database or the cache is unreachable.') },
    },
  },
  // Answered raw by server.ts, on every host, before Fastify.
  '/healthz': {
    get: {
      operationId: 'liveness',
      summary: 'Liveness: the process answers.',
      tags: ['Operations'],
      security: [],
      responses: { '200': { description: 'Alive.', content: { 'text/plain': { const: 'ok' } } } },
    },
  },
};
