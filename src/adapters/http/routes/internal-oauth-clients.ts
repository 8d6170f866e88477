// Operator-registered OAuth clients (API.md section 13a), for the operator with INTERNAL_API_TOKEN:
// POST, GET and DELETE /internal/oauth/clients. Without the token configured the routes do not
// exist, so /internal/* answers 404 like any unknown path. The decisions live in
// src/domain/oauth/clients.ts.
import type { FastifyInstance } from 'fastify';
import type { DomainDeps } from '../../../domain/context.js';
import { badRequest } from '../../../domain/errors.js';
import { deleteOperatorClient, listOperatorClients, registerOperatorClient, type OperatorClient } from '../../../domain/oauth/clients.js';
import { requireInternalToken } from '../bearer.js';

const json = (c: OperatorClient) => ({
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
    if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) throw badRequest('Send a JSON object.');
    const { client, secret } = await registerOperatorClient(deps, req.body as Record<string, unknown>);
    return reply
      .status(201)
      .header('cache-control', 'no-store')
      .send({ ...json(client), ...(secret === null ? {} : { client_secret: secret }) });
  });
  app.get('/internal/oauth/clients', { onRequest: operator }, async () => ({ clients: (await listOperatorClients(deps)).map(json) }));
  app.delete<{ Params: { id: string } }>('/internal/oauth/clients/:id', { onRequest: operator }, async (req, reply) => {
    await deleteOperatorClient(deps, req.params.id);
    return reply.status(204).send();
  });
}
