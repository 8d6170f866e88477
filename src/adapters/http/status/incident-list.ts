// GET /status/incidents on the zone host (API.md section 17): `{incidents:[…]}` of the last 90
// days, newest first. Public and unauthenticated, so a crawler must not turn it into a query per
// request: the rendered answer is kept for a few seconds per instance (a new incident shows within
// that time), and concurrent requests share one read.
import type { Db } from '../../../domain/store.js';
import { incidentJson, listIncidents, type IncidentView } from '../../../domain/status/incidents.js';
import { keptFor } from './kept.js';
import type { Rendered } from './views.js';

const KEEP_MS = 5_000;
const HEADERS = ['content-type', 'application/json; charset=utf-8', 'cache-control', 'no-cache', 'access-control-allow-origin', '*', 'x-content-type-options', 'nosniff'];

export const renderIncidents = (list: readonly IncidentView[]): Rendered => ({ body: JSON.stringify({ incidents: list.map(incidentJson) }), headers: HEADERS });

export function incidentList(deps: { db: Db; clock: () => Date }): () => Promise<Rendered> {
  return keptFor(KEEP_MS, deps.clock, () => listIncidents(deps).then(renderIncidents));
}
