// GET /api/v2/summary.json on the zone host (API.md section 17): Statuspage's public summary, the
// format aggregators, chat integrations and monitors already parse. Built from the roll-up (its
// components, open incidents and upcoming maintenance), so it is rendered once per snapshot and
// served like /status.
import type { IncidentJson, MaintenanceJson } from '../../../domain/status/notices.js';
import { isUnconfigured, type Rollup } from '../../../domain/status/rollup.js';

type ComponentState = 'operational' | 'degraded_performance' | 'partial_outage' | 'major_outage' | 'under_maintenance';
type Indicator = 'none' | 'minor' | 'major' | 'critical';

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

const updatesOf = (incidentId: string, updates: IncidentJson['updates']) =>
  updates.map((u, n) => ({ id: `${incidentId}-${updates.length - n}`, status: u.status, body: u.message, incident_id: incidentId, created_at: u.at, updated_at: u.at, display_at: u.at }));

export function statuspageSummary(rollup: Rollup, serviceName: string, pageUrl: string): unknown {
  const incidents = rollup.incidents ?? [];
  const maintenances = rollup.maintenances ?? [];
  // A component that is not configured is not part of the page (Statuspage has no state for it).
  const components = rollup.components.filter((c) => !isUnconfigured(c)).map((c, position) => ({
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
    incidents: incidents.map((i) => ({
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
    scheduled_maintenances: maintenances.map((m) => ({
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
