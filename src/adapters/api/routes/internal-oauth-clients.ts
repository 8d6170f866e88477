// Operator-registered OAuth clients (API.md section 13a), for the operator with INTERNAL_API_TOKEN:
// POST, GET and DELETE /internal/oauth/clients. Without the token configured the routes do not
// exist, so /internal/* answers 404 like any unknown path. The decisions live in
// src/domain/oauth/clients.ts.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { DomainDeps } from '../../../domain/context.js';
import { badRequest, PROBLEMS } from '../../../domain/errors.js';
import { deleteOperatorClient, listOperatorClients, registerOperatorClient, type OperatorClient } from '../../../domain/oauth/clients.js';
import { requireInternalToken } from '../bearer.js';
import { BODY_OVER_64K, INTERNAL_TOKEN_REQUIRED, NOT_JSON, pathParameter, problem, SERVER_FAULT, type RawOperation, type RawPaths } from '../../openapi-paths.js';

const ClientRegistration = z.object({
  client_name: z.string().max(100),
  redirect_uris: z.array(z.string()).min(1).max(10),
  application_type: z.enum(['web', 'native']).optional(),
  confidential: z.boolean().optional(),
});

const ClientJson = z.object({
  client_id: z.string(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  application_type: z.enum(['web', 'native']),
  confidential: z.boolean(),
  created_at: z.string().meta({ format: 'date-time' }),
  client_secret: z.string().optional().meta({ description: "A confidential client's secret: in the answer to its registration only." }),
});

const ClientList = z.object({ clients: z.array(ClientJson) });

const json = (c: OperatorClient): z.infer<typeof ClientJson> => ({
  client_id: c.clientId,
  client_name: c.clientName,
  redirect_uris: c.redirectUris,
  application_type: c.applicationType,
  confidential: c.confidential,
  created_at: c.createdAt.toISOString(),
});

export function registerInternalOAuthClientRoutes(app: FastifyInstance, deps: Pick<DomainDeps, 'db' | 'cipher' | 'clock' | 'cache'>, internalApiToken: string | null): void {
  if (!internalApiToken) return;
  const operator = requireInternalToken(internalApiToken);
  app.post('/internal/oauth/clients', { onRequest: operator }, async (req, reply) => {
    if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) throw badRequest(PROBLEMS.bodyNotObject, 'Send a JSON object.');
    const { client, secret } = await registerOperatorClient(deps, req.body as Record<string, unknown>);
    return reply
      .status(201)
      .header('cache-control', 'no-store')
      .send({ ...json(client), ...(secret === null ? {} : { client_secret: secret }) } satisfies z.infer<typeof ClientJson>);
  });
  app.get('/internal/oauth/clients', { onRequest: operator }, async (): Promise<z.infer<typeof ClientList>> => ({ clients: (await listOperatorClients(deps)).map(json) }));
  app.delete<{ Params: { id: string } }>('/internal/oauth/clients/:id', { onRequest: operator }, async (req, reply) => {
    await deleteOperatorClient(deps, req.params.id);
    return reply.status(204).send();
  });
}

const operator = (operationId: string, summary: string, rest: Omit<RawOperation, 'operationId' | 'summary' | 'tags' | 'security'>): RawOperation => ({
  operationId,
  summary,
  tags: ['OAuth for tunnels'],
  security: [{ internalToken: [] }],
  ...rest,
  responses: { ...rest.responses, '401': INTERNAL_TOKEN_REQUIRED, '5XX': SERVER_FAULT },
});

export const internalOAuthClientPaths: RawPaths = {
  '/internal/oauth/clients': {
    post: operator('registerOAuthClient', 'Register a client that cannot register itself; a confidential one gets a secret, shown once.', {
      requestBody: { required: true, content: { 'application/json': ClientRegistration } },
      responses: {
        '201': { description: 'The client, with its secret when confidential.', content: { 'application/json': ClientJson } },
        '400': problem('A missing name, bad redirect URIs or an unknown application type.'),
        '413': BODY_OVER_64K,
        '415': NOT_JSON,
      },
    }),
    get: operator('listOAuthClients', 'The operator-registered clients (no secrets).', {
      responses: { '200': { description: 'The clients.', content: { 'application/json': ClientList } } },
    }),
  },
  '/internal/oauth/clients/{id}': {
    delete: operator('deleteOAuthClient', 'Delete a client; its grants and what they issued are revoked.', {
      parameters: [pathParameter('id')],
      responses: { '204': { description: 'Deleted.' }, '404': problem('No such client.') },
    }),
  },
};
