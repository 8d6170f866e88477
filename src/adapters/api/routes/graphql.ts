// POST/GET /graphql: Fastify hands the request to Yoga and copies its answer back.
import type { FastifyInstance } from 'fastify';
import type { createGraphQLServer } from '../../graphql/yoga.js';

export function registerGraphQLRoute(app: FastifyInstance, yoga: ReturnType<typeof createGraphQLServer>): void {
  app.route({
    url: yoga.graphqlEndpoint,
    method: ['GET', 'POST'],
    handler: async (req, reply) => {
      const response = await yoga.handleNodeRequestAndResponse(req, reply, { req, reply });
      response.headers.forEach((value, key) => {
        reply.header(key, value);
      });
      reply.status(response.status);
      reply.send(response.body);
      return reply;
    },
  });
}
