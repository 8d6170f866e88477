// GET /status/incidents on the zone host (API.md section 17): `{incidents:[…]}` of the last 90
// days, newest first, for machines, and the same list as a page in the status page's look for
// people (`Accept: text/html`, as /status decides). Public and unauthenticated, so a crawler must
// not turn it into a query per request: both answers are rendered from one read, kept for a few
// seconds per instance (a new incident shows within that time), and concurrent requests share it.
import { z } from 'zod';
import type { Db } from '../../../domain/store.js';
import { incidentJson, listIncidents, type IncidentView } from '../../../domain/status/incidents.js';
import { SERVER_FAULT, TEXT, type RawPaths } from '../../openapi-paths.js';
import { keptFor } from './kept.js';
import { renderIncidentsPage } from './page.js';
import { Incident } from './schemas.js';
import type { Rendered } from './views.js';

const IncidentList = z.object({ incidents: z.array(Incident) });

const KEEP_MS = 5_000;
// The answer depends on Accept: no intermediary may hand one to the other's client.
const COMMON = { 'cache-control': 'no-cache', vary: 'Accept', 'x-content-type-options': 'nosniff' };
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*', ...COMMON };
// The status page's policy: inline styles only, no script, its links on this host.
const HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  ...COMMON,
};

export interface IncidentAnswers {
  json: Rendered;
  html: Rendered;
}

export function renderIncidents(list: readonly IncidentView[], serviceName: string): IncidentAnswers {
  const incidents = list.map(incidentJson);
  return {
    json: { body: JSON.stringify({ incidents } satisfies z.infer<typeof IncidentList>), headers: JSON_HEADERS },
    html: { body: renderIncidentsPage(incidents, serviceName), headers: HTML_HEADERS },
  };
}

/** The answer for `html` (a browser) or not, from the list read at most once per KEEP_MS. */
export function incidentList(deps: { db: Db; clock: () => Date }, serviceName: string): (html: boolean) => Promise<Rendered> {
  const load = keptFor(KEEP_MS, deps.clock, () => listIncidents(deps).then((list) => renderIncidents(list, serviceName)));
  return async (html) => {
    const answers = await load();
    return html ? answers.html : answers.json;
  };
}

export const incidentListPaths: RawPaths = {
  '/status/incidents': {
    host: 'zone',
    get: {
      operationId: 'listIncidents',
      summary: 'Incidents of the last 90 days, newest first: JSON, or a page for a browser (`Accept: text/html`).',
      tags: ['Status'],
      security: [],
      responses: { '200': { description: 'The list.', content: { 'application/json': IncidentList, 'text/html': TEXT } }, '5XX': SERVER_FAULT },
    },
  },
};
