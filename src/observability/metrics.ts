// Prometheus metrics: one registry per app instance (tests build several), default process
// metrics, and the HTTP duration histogram labelled by route pattern, never by raw path or host.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  statusChecks: Counter<'component' | 'ok'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route pattern',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const statusChecks = new Counter({
    name: 'service_edge_status_check_total',
    help: 'Status roll-up probe outcomes, counted on each refresh (cache miss)',
    labelNames: ['component', 'ok'] as const,
    registers: [registry],
  });
  return { registry, httpDuration, statusChecks };
}
