// The words and shapes of incidents and maintenance (API.md section 17), shared by the roll-up
// that carries them and the flows that write them (a leaf: it imports nothing).
export const INCIDENT_IMPACTS = ['minor', 'major', 'critical'] as const;
export const INCIDENT_STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'] as const;
export type IncidentImpact = (typeof INCIDENT_IMPACTS)[number];
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/** An incident as API.md section 17 writes it (the /status roll-up carries these as they are). */
export interface IncidentJson {
  id: string;
  title: string;
  impact: IncidentImpact;
  status: IncidentStatus;
  components: string[];
  created_at: string;
  resolved_at: string | null;
  automatic: boolean;
  updates: { status: IncidentStatus; message: string; at: string }[];
}

export interface MaintenanceJson {
  id: string;
  title: string;
  components: string[];
  starts_at: string;
  ends_at: string;
  message: string;
  active: boolean;
}
