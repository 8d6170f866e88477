// Incidents and planned maintenance (API.md section 17): what operators post through the internal
// API, what the background refresh opens and resolves by itself, and what the status page lists.
// The seed's /status roll-up does not change; these sit beside it.
import { badRequest, conflict, notFound, PROBLEMS } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Db } from '../store.js';
import { INCIDENT_IMPACTS, INCIDENT_STATUSES, type IncidentImpact, type IncidentJson, type IncidentStatus, type MaintenanceJson } from './notices.js';
import { COMPONENTS, isUnconfigured, type Rollup } from './rollup.js';
import { enqueueNotices, incidentNotice, maintenanceNotice, type SubscriptionDeps } from './subscriptions.js';

export { INCIDENT_IMPACTS, INCIDENT_STATUSES, type IncidentImpact, type IncidentJson, type IncidentStatus, type MaintenanceJson } from './notices.js';
import {
  deleteMaintenanceRow,
  insertIncident,
  insertIncidentUpdate,
  insertMaintenance,
  recordStreaks,
  selectIncidentsSince,
  selectFeedRows,
  selectNotices,
  type IncidentRow,
  type MaintenanceRow,
} from './store.js';


/** Consecutive failed refreshes (10 s apart) that open an automatic incident. */
export const AUTOMATIC_INCIDENT_AFTER = 3;
/** How far back the public incident list goes. */
export const INCIDENT_HISTORY_DAYS = 90;
const DAY_MS = 24 * 3600_000;

export const TITLE_MAX = 200;
export const MESSAGE_MAX = 5000;

type IncidentDeps = { db: Db; clock: () => Date };
/** Writing incidents and maintenance notifies subscribers (in the same transaction). */
export type IncidentWriteDeps = SubscriptionDeps;

export interface IncidentView {
  id: string;
  title: string;
  impact: IncidentImpact;
  status: IncidentStatus;
  components: string[];
  createdAt: Date;
  resolvedAt: Date | null;
  automatic: boolean;
  /** Newest first. */
  updates: { status: IncidentStatus; message: string; at: Date }[];
}

export interface MaintenanceView extends MaintenanceRow {
  /** Under way now. */
  active: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(PROBLEMS.invalidIncident, `"${field}" must be a non-empty string.`);
  // PostgreSQL text cannot hold NUL: refused here, not a failed insert.
  if (value.includes('\u0000')) throw badRequest(PROBLEMS.invalidIncident, `"${field}" must not contain NUL characters.`);
  const trimmed = value.trim();
  if (trimmed.length > max) throw badRequest(PROBLEMS.invalidIncident, `"${field}" is at most ${max} characters.`);
  return trimmed;
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) throw badRequest(PROBLEMS.invalidIncident, `"${field}" must be one of ${allowed.join(', ')}.`);
  return value as T;
}

/** A non-empty list of known component names, each once, in the roll-up's order. */
function components(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string')) {
    throw badRequest(PROBLEMS.invalidIncident, `"components" must be a non-empty list of component names (${COMPONENTS.join(', ')}).`);
  }
  const unknown = value.filter((v) => !(COMPONENTS as readonly string[]).includes(v));
  if (unknown.length > 0) throw badRequest(PROBLEMS.invalidIncident, `Unknown component: ${unknown.join(', ')}. The components are ${COMPONENTS.join(', ')}.`);
  return COMPONENTS.filter((c) => value.includes(c));
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/i;

function time(value: unknown, field: string): Date {
  const m = typeof value === 'string' ? RFC3339.exec(value) : null;
  // The calendar date must exist (JavaScript would roll 2026-02-30 over into March).
  const [y, mo, d] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  const real = m !== null && mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
  const at = real ? new Date(value as string) : null;
  if (!at || Number.isNaN(at.getTime())) throw badRequest(PROBLEMS.invalidIncident, `"${field}" must be an RFC 3339 time with a zone, such as 2026-12-01T22:00:00Z.`);
  return at;
}

function body(input: unknown): Record<string, unknown> {
  if (!isObject(input)) throw badRequest(PROBLEMS.bodyNotObject, 'The request body must be a JSON object.');
  return input;
}

const incidentView = (r: IncidentRow): IncidentView => ({
  id: r.id,
  title: r.title,
  impact: r.impact as IncidentImpact,
  status: r.status as IncidentStatus,
  components: r.components,
  createdAt: r.createdAt,
  resolvedAt: r.resolvedAt,
  automatic: r.automatic,
  updates: r.updates.map((u) => ({ status: u.status as IncidentStatus, message: u.message, at: u.at })),
});

export const maintenanceView = (m: MaintenanceRow, now: Date): MaintenanceView => ({ ...m, active: m.startsAt <= now && now < m.endsAt });

export const incidentJson = (i: IncidentView): IncidentJson => ({
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

export const maintenanceJson = (m: MaintenanceView): MaintenanceJson => ({
  id: m.id,
  title: m.title,
  components: m.components,
  starts_at: m.startsAt.toISOString(),
  ends_at: m.endsAt.toISOString(),
  message: m.message,
  active: m.active,
});

/** How far ahead /status shows planned maintenance. */
export const MAINTENANCE_AHEAD_DAYS = 7;

/**
 * What /status shows beside the components (read by the refresh, so it rides in the cached
 * roll-up, never a query per request): open incidents, newest first, and maintenance under way
 * or starting within 7 days, soonest first.
 */
export async function readNotices(db: Db, now: Date): Promise<{ incidents: IncidentJson[]; maintenances: MaintenanceJson[] }> {
  const { incidents, maintenances } = await selectNotices(db, now, new Date(now.getTime() + MAINTENANCE_AHEAD_DAYS * DAY_MS));
  return { incidents: incidents.map((r) => incidentJson(incidentView(r))), maintenances: maintenances.map((m) => maintenanceJson(maintenanceView(m, now))) };
}

/** POST /internal/status/incidents: a new incident with its first update (`resolved` closes it at once). */
export async function createIncident(deps: IncidentWriteDeps, input: unknown): Promise<IncidentView> {
  const b = body(input);
  const incident = {
    title: text(b.title, 'title', TITLE_MAX),
    impact: oneOf(b.impact, 'impact', INCIDENT_IMPACTS),
    components: components(b.components),
    status: oneOf(b.status, 'status', INCIDENT_STATUSES),
    message: text(b.message, 'message', MESSAGE_MAX),
  };
  const row = await insertIncident(deps.db, { ...incident, at: deps.clock() }, async (tx, r) => {
    await enqueueNotices(deps, tx, incidentNotice(r, true));
  });
  deps.mailNotify();
  return incidentView(row);
}

/** POST /internal/status/incidents/<id>/updates: 404 unknown; 409 once it is resolved. */
export async function addIncidentUpdate(deps: IncidentWriteDeps, id: string, input: unknown): Promise<IncidentView> {
  const b = body(input);
  const update = { status: oneOf(b.status, 'status', INCIDENT_STATUSES), message: text(b.message, 'message', MESSAGE_MAX) };
  if (!isUuid(id)) throw notFound(PROBLEMS.incidentNotFound, 'No such incident.');
  const result = await insertIncidentUpdate(deps.db, id, { ...update, at: deps.clock() }, async (tx, r) => {
    await enqueueNotices(deps, tx, incidentNotice(r, false));
  });
  if (result === null) throw notFound(PROBLEMS.incidentNotFound, 'No such incident.');
  if (result === 'resolved') throw conflict(PROBLEMS.incidentResolved, 'This incident is resolved; open a new one.');
  deps.mailNotify();
  return incidentView(result);
}

/** POST /internal/status/maintenances. */
export async function createMaintenance(deps: IncidentWriteDeps, input: unknown): Promise<MaintenanceView> {
  const b = body(input);
  const fields = {
    title: text(b.title, 'title', TITLE_MAX),
    components: components(b.components),
    startsAt: time(b.starts_at, 'starts_at'),
    endsAt: time(b.ends_at, 'ends_at'),
    message: text(b.message, 'message', MESSAGE_MAX),
  };
  if (fields.endsAt <= fields.startsAt) throw badRequest(PROBLEMS.invalidIncident, '"ends_at" must be after "starts_at".');
  const now = deps.clock();
  const row = await insertMaintenance(deps.db, { ...fields, createdAt: now }, async (tx, m) => {
    await enqueueNotices(deps, tx, maintenanceNotice(m));
  });
  deps.mailNotify();
  return maintenanceView(row, now);
}

/** DELETE /internal/status/maintenances/<id>. */
export async function deleteMaintenance(deps: IncidentDeps, id: string): Promise<void> {
  if (!isUuid(id) || !(await deleteMaintenanceRow(deps.db, id))) throw notFound(PROBLEMS.incidentNotFound, 'No such maintenance.');
}

/** An entry of the status feed: an incident update, or a maintenance as announced. */
export interface FeedEntry {
  id: string;
  kind: 'incident' | 'maintenance';
  title: string;
  status: string;
  message: string;
  components: string[];
  at: Date;
  /** Maintenance only: its window. */
  window?: { startsAt: Date; endsAt: Date };
}

export const FEED_ENTRIES = 50;

/** GET /status/feed.atom: incident updates and maintenance, newest first, at most 50. */
export async function feedEntries(deps: IncidentDeps): Promise<FeedEntry[]> {
  const { updates, maintenances } = await selectFeedRows(deps.db, FEED_ENTRIES);
  const entries: FeedEntry[] = [
    ...updates.map((u) => ({ id: u.id, kind: 'incident' as const, title: u.incident.title, status: u.status, message: u.message, components: u.incident.components, at: u.at })),
    ...maintenances.map((m) => ({
      id: m.id,
      kind: 'maintenance' as const,
      title: m.title,
      status: 'scheduled',
      message: m.message,
      components: m.components,
      at: m.createdAt,
      window: { startsAt: m.startsAt, endsAt: m.endsAt },
    })),
  ];
  return entries.sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : -1)).slice(0, FEED_ENTRIES);
}

/** GET /status/incidents: the last 90 days, newest first. */
export async function listIncidents(deps: IncidentDeps): Promise<IncidentView[]> {
  const since = new Date(deps.clock().getTime() - INCIDENT_HISTORY_DAYS * DAY_MS);
  return (await selectIncidentsSince(deps.db, since)).map(incidentView);
}

const TITLE_OF: Record<string, string> = { broker: 'Broker unavailable', api: 'API unavailable', edge: 'Edge unavailable' };

/**
 * After a refresh this instance probed (once per probe, across instances): opens an automatic
 * incident for a component down on AUTOMATIC_INCIDENT_AFTER consecutive refreshes, and resolves
 * it on the first refresh that finds the component up. An unconfigured component is not down:
 * it never opens one, and one left open from before its health URL was removed is resolved.
 */
export async function trackAutomaticIncidents(deps: IncidentWriteDeps, rollup: Rollup): Promise<{ opened: string[]; resolved: string[] }> {
  let notices = 0;
  const unconfigured = new Set(rollup.components.filter(isUnconfigured).map((c) => c.name as string));
  const changed = await recordStreaks(
    deps.db,
    rollup.components.map((c) => ({ component: c.name, failed: !c.ok && !unconfigured.has(c.name) })),
    new Date(rollup.checked_at),
    AUTOMATIC_INCIDENT_AFTER,
    (component) => ({
      title: TITLE_OF[component] ?? `${component} unavailable`,
      message: `Opened automatically: ${component} failed its checks on ${AUTOMATIC_INCIDENT_AFTER} consecutive refreshes. We are looking into it.`,
    }),
    (component) =>
      unconfigured.has(component)
        ? `Resolved automatically: ${component} is no longer checked (its health URL is not configured).`
        : `Resolved automatically: ${component} passes its checks again.`,
    async (tx, r) => {
      notices += await enqueueNotices(deps, tx, incidentNotice(r, r.status !== 'resolved'));
    },
  );
  if (notices > 0) deps.mailNotify();
  return changed;
}
