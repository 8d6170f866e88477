// Prometheus metrics: one registry per app instance (tests build several), default process
// metrics, and the HTTP duration histogram labelled by route pattern, never by raw path or host.
// Fastify routes and the raw handlers observe the same httpDuration histogram.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

type DurationLabels = 'method' | 'route' | 'status';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<DurationLabels>;
  statusChecks: Counter<'component' | 'ok'>;
  /** Duration of each status probe (broker, api), failed and timed-out ones included. */
  statusProbeDuration: Histogram<'component'>;
}

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createMetrics(): Metrics {
  const registry = new Registry();
  // The event-loop delay histogram samples every 100 ms rather than prom-client's 10: a 10 ms
  // timer wakes an idle process 100 times a second, most of what an idle instance spends, and a
  // login spends most of its time waiting on argon2, so those wakeups land on the logins' CPU. A scrape every 15 s still
  // gets 150 samples.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route pattern',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const statusChecks = new Counter({
    name: 'service_edge_status_check_total',
    help: 'Status roll-up probe outcomes, counted on each refresh (cache miss)',
    labelNames: ['component', 'ok'] as const,
    registers: [registry],
  });
  const statusProbeDuration = new Histogram({
    name: 'service_edge_status_probe_duration_seconds',
    help: 'Status probe duration per probed component (broker, api), counted with the probe outcomes',
    labelNames: ['component'] as const,
    // Probes are cut at 2 s: the 2 and 2.5 buckets separate slow answers from timeouts.
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 2.5],
    registers: [registry],
  });
  return { registry, httpDuration, statusChecks, statusProbeDuration };
}
