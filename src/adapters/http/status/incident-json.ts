// Incidents and maintenance as API.md section 17 writes them (snake_case, RFC 3339 times): the
// operator API's answers and the public lists share these shapes.
import type { IncidentView, MaintenanceView } from '../../../domain/status/incidents.js';

export const incidentJson = (i: IncidentView) => ({
  id: i.id,
  title: i.title,
  impact: i.impact,
  status: i.status,
  components: i.components,
  created_at: i.createdAt.toISOString(),
  resolved_at: i.resolvedAt?.toISOString() ?? null,
  automatic: i.automatic,
  updates: i.updates.map((u) => ({ status: u.status, message: u.message, at: u.at.toISOString() })),
});

export const maintenanceJson = (m: MaintenanceView) => ({
  id: m.id,
  title: m.title,
  components: m.components,
  starts_at: m.startsAt.toISOString(),
  ends_at: m.endsAt.toISOString(),
  message: m.message,
  active: m.active,
});
