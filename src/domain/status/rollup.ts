// The status roll-up (SPEC 2.6): probe broker and api in parallel, report edge as ok without a
// probe (this code runs on it), count every outcome and trace the refresh as edge.status_check.
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
}

export interface Rollup {
  status: 'ok' | 'degraded';
  /** Always broker, api, edge, in that order. */
  components: ComponentStatus[];
  /** RFC 3339 UTC time of the refresh that produced this roll-up. */
  checked_at: string;
}

export interface StatusDeps {
  config: Pick<Config, 'brokerHealthUrl' | 'apiHealthUrl' | 'serviceName'>;
  cache: Cache;
  clock: () => Date;
  metrics: Pick<Metrics, 'statusChecks'>;
  logger: Pick<Logger, 'warn'>;
}

const NOT_CONFIGURED: ProbeResult = { ok: false, detail: 'not configured' };

/** Probes the upstreams once and builds a fresh roll-up. Callers decide when (cache, single flight). */
export function refreshRollup(deps: StatusDeps): Promise<Rollup> {
  return tracer().startActiveSpan('edge.status_check', async (span) => {
    try {
      const { brokerHealthUrl, apiHealthUrl } = deps.config;
      const [broker, api] = await Promise.all([
        brokerHealthUrl ? probeHealth(brokerHealthUrl) : Promise.resolve(NOT_CONFIGURED),
        probeHealth(apiHealthUrl),
      ]);
      const components: ComponentStatus[] = [
        { name: 'broker', ...broker },
        { name: 'api', ...api },
        { name: 'edge', ok: true, detail: 'ok' },
      ];
      const rollup: Rollup = {
        status: components.every((c) => c.ok) ? 'ok' : 'degraded',
        components,
        checked_at: deps.clock().toISOString(),
      };
      for (const c of components) {
        deps.metrics.statusChecks.inc({ component: c.name, ok: String(c.ok) });
        span.setAttribute(`status.${c.name}.ok`, c.ok);
        if (!c.ok) span.setAttribute(`status.${c.name}.detail`, c.detail);
      }
      span.setAttribute('status.overall', rollup.status);
      if (rollup.status !== 'ok') {
        deps.logger.warn({ components: components.filter((c) => !c.ok) }, 'status roll-up degraded');
      }
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
