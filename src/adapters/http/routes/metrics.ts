// GET /metrics (Prometheus text), behind METRICS_TOKEN when one is configured.
import type { FastifyInstance } from 'fastify';
import { unauthenticated } from '../../../domain/errors.js';
import type { Config } from '../../../infra/config.js';
import type { Metrics } from '../../../infra/observability/metrics.js';
import { hasBearer } from '../bearer.js';

export function registerMetricsRoute(app: FastifyInstance, deps: { config: Pick<Config, 'metricsToken'>; metrics: Pick<Metrics, 'registry'> }): void {
  const { metricsToken } = deps.config;
  const { registry } = deps.metrics;
  app.get('/metrics', async (req, reply) => {
    if (metricsToken && !hasBearer(req.headers.authorization, metricsToken)) throw unauthenticated('A metrics token is required.');
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
