// GET /openapi.json (API.md section 16): the document printed from the route table the server
// mounts (src/adapters/rest/openapi.ts), built on the first request and then served from memory
// with a strong ETag. Public, and readable from any origin (no credentials), so editors, client
// generators and mock servers can load it.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { buildOpenApiDocument, type OpenApiOptions } from './openapi.js';
import type { RestRoute } from './route.js';

export function registerOpenApiRoute(app: FastifyInstance, schema: GraphQLSchema, routes: readonly RestRoute[], opts: OpenApiOptions): void {
  let served: { body: string; etag: string } | null = null;
  const document = () => {
    if (!served) {
      const body = JSON.stringify(buildOpenApiDocument(schema, routes, opts));
      served = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    }
    return served;
  };
  app.get('/openapi.json', async (req, reply) => {
    const { body, etag } = document();
    // A credentialed CORS answer for an allowed origin stays as it is; anyone else may read too.
    if (!reply.hasHeader('access-control-allow-origin')) reply.header('access-control-allow-origin', '*');
    reply.header('etag', etag).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff');
    if (req.headers['if-none-match'] === etag) return reply.status(304).send();
    return reply.type('application/json; charset=utf-8').send(body);
  });
}
