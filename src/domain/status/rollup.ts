// The status roll-up (SPEC 2.6, API.md 11): probe broker and api in parallel, report edge as ok
// without a probe (this code runs on it), count every outcome, observe each probe's duration and
// trace the refresh as edge.status_check.
import type { IncidentJson, MaintenanceJson } from './notices.js';
import { SpanStatusCode } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Cache } from '../../infra/cache/cache.js';
import type { Config } from '../../infra/config.js';
import type { Metrics } from '../../infra/observability/metrics.js';
import { tracer } from '../../infra/observability/tracing.js';
import { probeHealth, type ProbeResult } from './probe.js';

export type ComponentName = 'broker' | 'api' | 'edge';

export interface ComponentStatus {
  name: ComponentName;
  ok: boolean;
  detail: string;
  /** The probe's duration in ms; null for edge (never probed) and for an unconfigured broker. */
  latency_ms: number | null;
}

export const COMPONENTS: readonly ComponentName[] = ['broker', 'api', 'edge'];

/** The detail of a component without a health URL (BROKER_HEALTH_URL unset), as the contract words it. */
export const NOT_CONFIGURED_DETAIL = 'not configured';

/**
 * A component with nothing to probe: reported down with the detail `not configured` (the
 * contract's words), but not an outage. It does not turn the roll-up degraded, opens no incident
 * and adds nothing to the history. Read from the entry itself, so a roll-up shared by another
 * instance is judged the same way.
 */
export const isUnconfigured = (c: ComponentStatus): boolean => !c.ok && c.latency_ms === null && c.detail === NOT_CONFIGURED_DETAIL;

/** The components that are down, an unconfigured one aside (it is named, not shown as an outage). */
export const downComponents = (rollup: Pick<Rollup, 'components'>): ComponentName[] =>
  rollup.components.filter((c) => !c.ok && !isUnconfigured(c)).map((c) => c.name);

export interface Rollup {
  /** "ok" when every configured component is ok (an unconfigured one is left out), else "degraded". */
  status: 'ok' | 'degraded';
  /** Always broker, api, edge, in that order. */
  components: ComponentStatus[];
  /** RFC 3339 UTC time the refresh that produced this roll-up started (the 10 s window starts here). */
  checked_at: string;
  /** Open incidents, newest first (API.md section 17), read by the refresh. */
  incidents: IncidentJson[];
  /** Maintenance under way or starting within 7 days, soonest first. */
  maintenances: MaintenanceJson[];
}

export interface StatusDeps {
  config: Pick<Config, 'brokerHealthUrl' | 'apiHealthUrl'>;
  cache: Cache;
  clock: () => Date;
  metrics: Pick<Metrics, 'statusChecks' | 'statusProbeDuration'>;
  logger: Pick<Logger, 'warn' | 'info'>;
}

/**
 * What the roll-up says is wrong, as one comparable string ('' when all is well): the log notes a
 * change of it, not every refresh. An unconfigured component is not wrong (logged once at start).
 */
export function problemsOf(rollup: Rollup): string {
  return rollup.components
    .filter((c) => !c.ok && !isUnconfigured(c))
    .map((c) => `${c.name}: ${c.detail}`)
    .join('; ');
}

type Outcome = Omit<ProbeResult, 'latencyMs'> & { latencyMs: number | null };
const NOT_CONFIGURED: Outcome = { ok: false, detail: NOT_CONFIGURED_DETAIL, latencyMs: null };

/** Probes the upstreams once and builds a fresh roll-up. Callers decide when (cache, single flight). */
export function refreshRollup(deps: StatusDeps): Promise<Rollup> {
  return tracer().startActiveSpan('edge.status_check', async (span) => {
    try {
      const { brokerHealthUrl, apiHealthUrl } = deps.config;
      // Stamped when the probes start: the next refresh, one window later, finds this one expired.
      const checkedAt = deps.clock().toISOString();
      const [broker, api] = await Promise.all([
        brokerHealthUrl ? probeHealth(brokerHealthUrl) : Promise.resolve(NOT_CONFIGURED),
        probeHealth(apiHealthUrl),
      ]);
      const component = (name: ComponentName, o: Outcome): ComponentStatus => ({ name, ok: o.ok, detail: o.detail, latency_ms: o.latencyMs });
      const components: ComponentStatus[] = [
        component('broker', broker),
        component('api', api),
        { name: 'edge', ok: true, detail: 'ok', latency_ms: null },
      ];
      const rollup: Rollup = {
        // The contract's rule, unconfigured components included: "ok" only when every one is ok.
        // What an unconfigured one does not do is open incidents or count in the history.
        status: components.every((c) => c.ok) ? 'ok' : 'degraded',
        components,
        checked_at: checkedAt,
        // Filled in by the status service, which holds the database (service.ts).
        incidents: [],
        maintenances: [],
      };
      for (const c of components) {
        deps.metrics.statusChecks.inc({ component: c.name, ok: String(c.ok) });
        if (c.latency_ms !== null) deps.metrics.statusProbeDuration.observe({ component: c.name }, c.latency_ms / 1000);
        span.setAttribute(`status.${c.name}.ok`, c.ok);
        if (!c.ok) span.setAttribute(`status.${c.name}.detail`, c.detail);
      }
      span.setAttribute('status.overall', rollup.status);
      return rollup;
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Milliseconds since the roll-up was checked, on the injected clock. */
export function ageOf(rollup: Rollup, now: Date): number {
  return now.getTime() - Date.parse(rollup.checked_at);
}
