// The operators' status API (API.md section 17) on the API host, with INTERNAL_API_TOKEN like the
// edge's call: incidents, their updates, planned maintenance. Without the token configured the
// routes do not exist (/internal/* answers 404 like any unknown path).
import type { FastifyInstance } from 'fastify';
import {
  addIncidentUpdate,
  createIncident,
  createMaintenance,
  deleteMaintenance,
  incidentJson,
  maintenanceJson,
  type IncidentWriteDeps,
} from '../../../domain/status/incidents.js';
import { requireInternalToken } from '../bearer.js';

type IdParams = { Params: { id: string } };

export function registerInternalStatusRoutes(app: FastifyInstance, deps: IncidentWriteDeps, internalApiToken: string | null): void {
  if (!internalApiToken) return;
  const operator = { onRequest: requireInternalToken(internalApiToken) };
  app.post('/internal/status/incidents', operator, async (req, reply) => {
    return reply.status(201).send(incidentJson(await createIncident(deps, req.body)));
  });
  app.post<IdParams>('/internal/status/incidents/:id/updates', operator, async (req, reply) => {
    return reply.status(201).send(incidentJson(await addIncidentUpdate(deps, req.params.id, req.body)));
  });
  app.post('/internal/status/maintenances', operator, async (req, reply) => {
    return reply.status(201).send(maintenanceJson(await createMaintenance(deps, req.body)));
  });
  app.delete<IdParams>('/internal/status/maintenances/:id', operator, async (req, reply) => {
    await deleteMaintenance(deps, req.params.id);
    return reply.status(204).send();
  });
}
