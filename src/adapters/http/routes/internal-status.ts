// The operators' status API (API.md section 17) on the API host, with INTERNAL_API_TOKEN like the
// edge's call: incidents, their updates, planned maintenance. Without the token configured the
// routes do not exist (/internal/* answers 404 like any unknown path).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unauthenticated } from '../../../domain/errors.js';
import {
  addIncidentUpdate,
  createIncident,
  createMaintenance,
  deleteMaintenance,
  incidentJson,
  maintenanceJson,
  type IncidentWriteDeps,
} from '../../../domain/status/incidents.js';
import { hasBearer } from '../bearer.js';

type IdParams = { Params: { id: string } };

export function registerInternalStatusRoutes(app: FastifyInstance, deps: IncidentWriteDeps, internalApiToken: string | null): void {
  if (!internalApiToken) return;
  const operator = (req: FastifyRequest) => {
    if (!hasBearer(req.headers.authorization, internalApiToken)) throw unauthenticated('The internal API token is required.');
  };
  app.post('/internal/status/incidents', async (req, reply) => {
    operator(req);
    return reply.status(201).send(incidentJson(await createIncident(deps, req.body)));
  });
  app.post<IdParams>('/internal/status/incidents/:id/updates', async (req, reply) => {
    operator(req);
    return reply.status(201).send(incidentJson(await addIncidentUpdate(deps, req.params.id, req.body)));
  });
  app.post('/internal/status/maintenances', async (req, reply) => {
    operator(req);
    return reply.status(201).send(maintenanceJson(await createMaintenance(deps, req.body)));
  });
  app.delete<IdParams>('/internal/status/maintenances/:id', async (req, reply) => {
    operator(req);
    await deleteMaintenance(deps, req.params.id);
    return reply.status(204).send();
  });
}
