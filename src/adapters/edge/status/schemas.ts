// The status notices as the zone host and the operators' API answer them (API.md section 17):
// an incident and a planned maintenance, in JSON. Their answers are typed from these schemas, and
// the OpenAPI document lists them as the `Incident` and `Maintenance` components.
import { z } from 'zod';
import { INCIDENT_IMPACTS, INCIDENT_STATUSES } from '../../../domain/status/notices.js';
import { COMPONENTS, type ComponentName } from '../../../domain/status/rollup.js';

const time = z.string().meta({ format: 'date-time' });

/** A component name of the roll-up (broker, api, edge). */
export const ComponentNameSchema = z.enum(COMPONENTS as [ComponentName, ...ComponentName[]]);

export const Incident = z.object({
  id: z.string(),
  title: z.string(),
  impact: z.enum(INCIDENT_IMPACTS),
  status: z.enum(INCIDENT_STATUSES),
  components: z.array(z.string()),
  created_at: time,
  resolved_at: time.nullable(),
  automatic: z.boolean().meta({ description: 'Opened by the background refresh (a component down on 3 consecutive refreshes).' }),
  updates: z.array(z.object({ status: z.string(), message: z.string(), at: time })).meta({ description: 'Newest first.' }),
});

export const Maintenance = z.object({
  id: z.string(),
  title: z.string(),
  components: z.array(z.string()),
  starts_at: time,
  ends_at: time,
  message: z.string(),
  active: z.boolean().meta({ description: 'Under way now.' }),
});

/** GET /status as JSON: the roll-up. */
export const StatusRollup = z.object({
  status: z.enum(['ok', 'degraded']),
  components: z
    .array(
      z.object({
        name: ComponentNameSchema,
        ok: z.boolean(),
        detail: z.string(),
        latency_ms: z.number().nullable().meta({ description: "The probe's duration; null for edge (never probed) and an unconfigured broker." }),
      }),
    )
    .meta({ description: 'broker, api and edge, in that order.' }),
  checked_at: time,
  incidents: z.array(Incident).meta({ description: 'Open incidents, newest first.' }),
  maintenances: z.array(Maintenance).meta({ description: 'Maintenance under way or starting within 7 days, soonest first.' }),
});

/** The shapes the document names, by component name. */
export const STATUS_SCHEMAS = { Incident, Maintenance };
