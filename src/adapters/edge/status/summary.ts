// GET /api/v2/summary.json on the zone host (API.md section 17): Statuspage's public summary, the
// format aggregators, chat integrations and monitors already parse. Built from the roll-up (its
// components, open incidents and upcoming maintenance), so it is rendered once per snapshot and
// served like /status. The answer is typed from its schema (StatuspageSummary), which the OpenAPI
// document prints.
import { z } from 'zod';
import type { IncidentJson, MaintenanceJson } from '../../../domain/status/notices.js';
import { isUnconfigured, type Rollup } from '../../../domain/status/rollup.js';
import type { RawPaths } from '../../openapi-paths.js';

const INDICATORS = ['none', 'minor', 'major', 'critical'] as const;
const COMPONENT_STATES = ['operational', 'degraded_performance', 'partial_outage', 'major_outage', 'under_maintenance'] as const;
type ComponentState = (typeof COMPONENT_STATES)[number];
type Indicator = (typeof INDICATORS)[number];

const time = z.string().meta({ format: 'date-time' });
const ComponentRef = z.object({ id: z.string(), name: z.string(), status: z.enum(COMPONENT_STATES) });
const IncidentUpdate = z.object({ id: z.string(), status: z.string(), body: z.string(), incident_id: z.string(), created_at: time, updated_at: time, display_at: time });

/** Statuspage's summary (https://metastatuspage.com/api/v2), as far as this page fills it in. */
export const StatuspageSummary = z.object({
  page: z.object({ id: z.string(), name: z.string(), url: z.string(), time_zone: z.string(), updated_at: time }),
  status: z.object({ indicator: z.enum(INDICATORS), description: z.string() }),
  components: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      status: z.enum(COMPONENT_STATES),
      created_at: z.null(),
      updated_at: time,
      position: z.number().int(),
      description: z.null(),
      showcase: z.boolean(),
      group_id: z.null(),
      group: z.boolean(),
      only_show_if_degraded: z.boolean(),
    }),
  ),
  incidents: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      status: z.string(),
      impact: z.string(),
      created_at: time,
      updated_at: time,
      started_at: time,
      monitoring_at: time.nullable(),
      resolved_at: time.nullable(),
      shortlink: z.string(),
      incident_updates: z.array(IncidentUpdate),
      components: z.array(ComponentRef),
    }),
  ),
  scheduled_maintenances: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      status: z.enum(['scheduled', 'in_progress']),
      impact: z.literal('maintenance'),
      created_at: time,
      updated_at: time,
      scheduled_for: time,
      scheduled_until: time,
      shortlink: z.string(),
      incident_updates: z.array(IncidentUpdate),
      components: z.array(ComponentRef),
    }),
  ),
});
type Summary = z.infer<typeof StatuspageSummary>;

const RANK: Record<Indicator, number> = { none: 0, minor: 1, major: 2, critical: 3 };
const DESCRIPTION: Record<Indicator, string> = {
  none: 'All Systems Operational',
  minor: 'Minor Service Outage',
  major: 'Partial System Outage',
  critical: 'Major System Outage',
};
const BY_IMPACT: Record<string, ComponentState> = { minor: 'degraded_performance', major: 'partial_outage', critical: 'major_outage' };
const COMPONENT_RANK: Record<ComponentState, number> = { operational: 0, under_maintenance: 1, degraded_performance: 2, partial_outage: 3, major_outage: 4 };

const worst = (a: Indicator, b: Indicator): Indicator => (RANK[b] > RANK[a] ? b : a);

/** A component's state: down in the roll-up, else the worst open incident naming it, else maintenance under way. */
function componentState(name: string, ok: boolean, incidents: readonly IncidentJson[], maintenances: readonly MaintenanceJson[]): ComponentState {
  if (!ok) return 'major_outage';
  let state: ComponentState = maintenances.some((m) => m.active && m.components.includes(name)) ? 'under_maintenance' : 'operational';
  for (const i of incidents) {
    const s = BY_IMPACT[i.impact];
    if (s && i.components.includes(name) && COMPONENT_RANK[s] > COMPONENT_RANK[state]) state = s;
  }
  return state;
}

const updatesOf = (incidentId: string, updates: IncidentJson['updates']): Summary['incidents'][number]['incident_updates'] =>
  updates.map((u, n) => ({ id: `${incidentId}-${updates.length - n}`, status: u.status, body: u.message, incident_id: incidentId, created_at: u.at, updated_at: u.at, display_at: u.at }));

export function statuspageSummary(rollup: Rollup, serviceName: string, pageUrl: string): Summary {
  const incidents = rollup.incidents ?? [];
  const maintenances = rollup.maintenances ?? [];
  // A component that is not configured is not part of the page (Statuspage has no state for it).
  const components = rollup.components.filter((c) => !isUnconfigured(c)).map((c, position): Summary['components'][number] => ({
    id: c.name,
    name: c.name,
    status: componentState(c.name, c.ok, incidents, maintenances),
    created_at: null,
    updated_at: rollup.checked_at,
    position: position + 1,
    description: null,
    showcase: true,
    group_id: null,
    group: false,
    only_show_if_degraded: false,
  }));
  let indicator: Indicator = 'none';
  for (const i of incidents) indicator = worst(indicator, i.impact as Indicator);
  const down = components.filter((c) => c.status === 'major_outage').length;
  if (down > 0) indicator = worst(indicator, down === components.length ? 'critical' : 'major');
  const componentRefs = (names: readonly string[]) => components.filter((c) => names.includes(c.id)).map(({ id, name, status }) => ({ id, name, status }));
  const updatedAt = [rollup.checked_at, ...incidents.map((i) => i.updates[0]?.at ?? i.created_at)].sort().at(-1) ?? rollup.checked_at;
  return {
    page: { id: 'status', name: serviceName, url: pageUrl, time_zone: 'Etc/UTC', updated_at: updatedAt },
    status: { indicator, description: DESCRIPTION[indicator] },
    components,
    incidents: incidents.map((i): Summary['incidents'][number] => ({
      id: i.id,
      name: i.title,
      status: i.status,
      impact: i.impact,
      created_at: i.created_at,
      updated_at: i.updates[0]?.at ?? i.created_at,
      started_at: i.created_at,
      monitoring_at: i.updates.find((u) => u.status === 'monitoring')?.at ?? null,
      resolved_at: i.resolved_at,
      shortlink: pageUrl,
      incident_updates: updatesOf(i.id, i.updates),
      components: componentRefs(i.components),
    })),
    scheduled_maintenances: maintenances.map((m): Summary['scheduled_maintenances'][number] => ({
      id: m.id,
      name: m.title,
      status: m.active ? 'in_progress' : 'scheduled',
      impact: 'maintenance',
      created_at: m.starts_at,
      updated_at: m.starts_at,
      scheduled_for: m.starts_at,
      scheduled_until: m.ends_at,
      shortlink: pageUrl,
      incident_updates: [{ id: `${m.id}-1`, status: m.active ? 'in_progress' : 'scheduled', body: m.message, incident_id: m.id, created_at: m.starts_at, updated_at: m.starts_at, display_at: m.starts_at }],
      components: componentRefs(m.components),
    })),
  };
}

export const statuspageSummaryPaths: RawPaths = {
  '/api/v2/summary.json': {
    host: 'zone',
    get: {
      operationId: 'getStatuspageSummary',
      summary: "Statuspage's public summary format: page, status indicator, components, unresolved incidents, scheduled maintenance.",
      tags: ['Status'],
      security: [],
      externalDocs: { url: 'https://metastatuspage.com/api/v2', description: "Statuspage's public API" },
      responses: { '200': { description: 'The summary.', content: { 'application/json': StatuspageSummary } } },
    },
  },
};
