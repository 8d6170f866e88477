// The webhook queue's metrics (API.md section 15): attempts by outcome and their latency, and two
// gauges read from the database when scraped: the delivery lag (how long the oldest due delivery
// has waited for a worker: the queue falling behind) and the age of the oldest event still
// undelivered (receivers that keep failing, within the retry schedule).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface WebhookGauges {
  lagSeconds: () => Promise<number>;
  oldestSeconds: () => Promise<number>;
}

export function wireWebhookMetrics(registry: Registry, gauges: WebhookGauges): { observe: (outcome: string, seconds: number) => void } {
  const attempts = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, retrying, failed: no attempt left)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'webhook_delivery_duration_seconds',
    help: 'Webhook delivery attempt duration, from resolution to the end of the answer',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [registry],
  });
  new Gauge({
    name: 'webhook_delivery_lag_seconds',
    help: 'Seconds the oldest due webhook delivery has waited for a worker (0: none waiting)',
    registers: [registry],
    async collect() {
      this.set(await gauges.lagSeconds().catch(() => Number.NaN));
    },
  });
  new Gauge({
    name: 'webhook_oldest_undelivered_event_age_seconds',
    help: 'Age of the oldest webhook event not yet delivered to an enabled endpoint (retries included)',
    registers: [registry],
    async collect() {
      this.set(await gauges.oldestSeconds().catch(() => Number.NaN));
    },
  });
  return {
    observe(outcome, seconds) {
      attempts.inc({ outcome });
      latency.observe(seconds);
    },
  };
}
