// The operators' status API (API.md section 17) on the API host, with INTERNAL_API_TOKEN like the
// edge's call: incidents, their updates, planned maintenance. Without the token configured the
// routes do not exist (/internal/* answers 404 like any unknown path).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  addIncidentUpdate,
  createIncident,
  createMaintenance,
  deleteMaintenance,
  incidentJson,
  maintenanceJson,
  MESSAGE_MAX,
  TITLE_MAX,
  type IncidentWriteDeps,
} from '../../../domain/status/incidents.js';
import { INCIDENT_IMPACTS, INCIDENT_STATUSES } from '../../../domain/status/notices.js';
import { requireInternalToken } from '../bearer.js';
import { BODY_OVER_64K, INTERNAL_TOKEN_REQUIRED, NOT_JSON, pathParameter, problem, SERVER_FAULT, type RawOperation, type RawPaths, type RawResponse } from '../../openapi-paths.js';
import { ComponentNameSchema, Incident, Maintenance } from '../../edge/status/schemas.js';

// What the operator sends (the domain checks it: incidents.ts, with its own answers).
const title = z.string().max(TITLE_MAX);
const message = z.string().max(MESSAGE_MAX);
const components = z.array(ComponentNameSchema).min(1);
const status = z.enum(INCIDENT_STATUSES);
const time = z.string().meta({ format: 'date-time' });
const NewIncident = z.object({ title, impact: z.enum(INCIDENT_IMPACTS), components, status, message });
const NewUpdate = z.object({ status, message });
const NewMaintenance = z.object({ title, components, starts_at: time, ends_at: time, message });

const incident = (i: Parameters<typeof incidentJson>[0]): z.infer<typeof Incident> => incidentJson(i);
const maintenance = (m: Parameters<typeof maintenanceJson>[0]): z.infer<typeof Maintenance> => maintenanceJson(m);

type IdParams = { Params: { id: string } };

export function registerInternalStatusRoutes(app: FastifyInstance, deps: IncidentWriteDeps, internalApiToken: string | null): void {
  if (!internalApiToken) return;
  const operator = { onRequest: requireInternalToken(internalApiToken) };
  app.post('/internal/status/incidents', operator, async (req, reply) => {
    return reply.status(201).send(incident(await createIncident(deps, req.body)));
  });
  app.post<IdParams>('/internal/status/incidents/:id/updates', operator, async (req, reply) => {
    return reply.status(201).send(incident(await addIncidentUpdate(deps, req.params.id, req.body)));
  });
  app.post('/internal/status/maintenances', operator, async (req, reply) => {
    return reply.status(201).send(maintenance(await createMaintenance(deps, req.body)));
  });
  app.delete<IdParams>('/internal/status/maintenances/:id', operator, async (req, reply) => {
    await deleteMaintenance(deps, req.params.id);
    return reply.status(204).send();
  });
}

const operator = (operationId: string, summary: string, rest: Omit<RawOperation, 'operationId' | 'summary' | 'tags' | 'security'>): RawOperation => ({
  operationId,
  summary,
  tags: ['Status'],
  security: [{ internalToken: [] }],
  ...rest,
});
/** What every write of the operators' API may answer besides its own. */
const write = (responses: Record<string, RawResponse>): Record<string, RawResponse> => ({
  '401': INTERNAL_TOKEN_REQUIRED,
  '413': BODY_OVER_64K,
  '415': NOT_JSON,
  '5XX': SERVER_FAULT,
  ...responses,
});

export const internalStatusPaths: RawPaths = {
  '/internal/status/incidents': {
    post: operator('createIncident', 'Open an incident with its first update (an operator).', {
      requestBody: { required: true, content: { 'application/json': NewIncident } },
      responses: write({ '201': { description: 'The incident.', content: { 'application/json': Incident } }, '400': problem('Unknown components, or empty text.') }),
    }),
  },
  '/internal/status/incidents/{id}/updates': {
    post: operator('addIncidentUpdate', 'Post an update to an open incident (`resolved` closes it).', {
      parameters: [pathParameter('id')],
      requestBody: { required: true, content: { 'application/json': NewUpdate } },
      responses: write({
        '201': { description: 'The incident with its new update.', content: { 'application/json': Incident } },
        '400': problem('An unknown status, or empty text.'),
        '404': problem('No such incident.'),
        '409': problem('The incident is resolved already.'),
      }),
    }),
  },
  '/internal/status/maintenances': {
    post: operator('createMaintenance', 'Plan maintenance.', {
      requestBody: { required: true, content: { 'application/json': NewMaintenance } },
      responses: write({
        '201': { description: 'The maintenance.', content: { 'application/json': Maintenance } },
        '400': problem('Unknown components, bad times (ends_at not after starts_at), or empty text.'),
      }),
    }),
  },
  '/internal/status/maintenances/{id}': {
    delete: operator('deleteMaintenance', 'Cancel (delete) a maintenance.', {
      parameters: [pathParameter('id')],
      responses: { '204': { description: 'Deleted.' }, '401': INTERNAL_TOKEN_REQUIRED, '404': problem('No such maintenance.'), '5XX': SERVER_FAULT },
    }),
  },
};
