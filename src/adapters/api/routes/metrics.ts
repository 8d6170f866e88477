// GET /metrics (Prometheus text). On the public port only outside production or behind
// METRICS_TOKEN; METRICS_PORT moves it to its own listener (loopback or the cluster network).
import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { notFound, PROBLEMS, unauthenticated } from '../../../domain/errors.js';
import type { Config } from '../../../infra/config.js';
import type { Metrics } from '../../../infra/observability/metrics.js';
import { hasBearer } from '../bearer.js';
import { writeProblem } from '../../problem.js';
import { problem, TEXT, type RawPaths } from '../../openapi-paths.js';

type MetricsDeps = { config: Pick<Config, 'metricsToken' | 'metricsPort' | 'production' | 'baseUrl'>; metrics: Pick<Metrics, 'registry'> };

/** Where /metrics is served: never on the public port of a production server without a token. */
export function metricsOnPublicPort(config: MetricsDeps['config']): boolean {
  if (config.metricsPort !== null) return false;
  return !config.production || config.metricsToken !== null;
}

export function registerMetricsRoute(app: FastifyInstance, deps: MetricsDeps): void {
  if (!metricsOnPublicPort(deps.config)) return;
  const { metricsToken } = deps.config;
  const { registry } = deps.metrics;
  app.get('/metrics', async (req, reply) => {
    if (metricsToken && !hasBearer(req.headers.authorization, metricsToken)) throw unauthenticated(PROBLEMS.internalTokenRequired, 'A metrics token is required.');
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}

/** The separate metrics listener of METRICS_PORT (not started otherwise). */
export function createMetricsServer(deps: MetricsDeps): Server {
  const { metricsToken } = deps.config;
  const { registry } = deps.metrics;
  return createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) return void writeProblem(res, notFound(PROBLEMS.notFound), deps.config.baseUrl);
    if (metricsToken && !hasBearer(req.headers.authorization, metricsToken)) {
      return void writeProblem(res, unauthenticated(PROBLEMS.internalTokenRequired, 'A metrics token is required.'), deps.config.baseUrl);
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
        res.end(text);
      },
      () => res.destroy(),
    );
  });
}

export const metricsPaths: RawPaths = {
  '/metrics': {
    get: {
      operationId: 'metrics',
      summary: 'Prometheus metrics (with METRICS_TOKEN set, that bearer is needed; METRICS_PORT moves them off this port).',
      tags: ['Operations'],
      security: [{}, { metricsToken: [] }],
      responses: {
        '200': { description: 'Prometheus text format.', content: { 'text/plain': TEXT } },
        '401': problem('A metrics token is required.'),
        '404': problem('Not served on this port: production without METRICS_TOKEN, or METRICS_PORT set.'),
      },
    },
  },
};
