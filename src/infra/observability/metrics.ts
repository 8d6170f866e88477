// Prometheus metrics: one registry per app instance (tests build several), default process
// metrics, and the HTTP duration histogram labelled by route pattern, never by raw path or host.
// Fastify routes and the raw handlers observe the same httpDuration histogram.
import { Counter, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';

type DurationLabels = 'method' | 'route' | 'status';

export interface Metrics {
  registry: Registry;
  httpDuration: DurationHistogram;
  statusChecks: Counter<'component' | 'ok'>;
  /** Duration of each status probe (broker, api), failed and timed-out ones included. */
  statusProbeDuration: Histogram<'component'>;
}

const DURATION_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** One (method, route, status) series of the duration histogram, bound once by whoever observes it. */
export interface DurationSeries {
  observe(seconds: number): void;
}

class Series implements DurationSeries {
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly perBucket = new Float64Array(DURATION_BUCKETS.length + 1);
  count = 0;
  sum = 0;
  constructor(readonly labels: Readonly<Record<DurationLabels, string>>) {}

  observe(seconds: number): void {
    // prom-client refuses NaN and infinities; one would make the sum NaN for good.
    if (!Number.isFinite(seconds)) return;
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
    this.perBucket[i] = this.perBucket[i]! + 1;
    this.count++;
    this.sum += seconds;
  }

  clear(): void {
    this.perBucket.fill(0);
    this.count = 0;
    this.sum = 0;
  }
}

type Sample = { metricName: string; labels: Record<string, string | number>; value: number };

/** What prom-client's registry reads of a metric it did not make. */
interface RegistryMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }>;
  reset(): void;
}

/**
 * `http_request_duration_seconds`: a Prometheus histogram like prom-client's, exported through
 * its registry, whose series are bound once. The raw handlers observe on every request (cards,
 * /status, badges); with a bound series an observation is a bucket's increment, a count and a
 * sum, where prom-client's Histogram checks and hashes the label set on each observation.
 */
export class DurationHistogram {
  readonly name = 'http_request_duration_seconds';
  readonly help = 'HTTP request duration by route pattern';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly series = new Map<string, Series>();

  /** The series of a label set, made on first use. */
  labels(method: string, route: string, status: string): DurationSeries {
    const key = `${method}\0${route}\0${status}`;
    let series = this.series.get(key);
    if (series === undefined) this.series.set(key, (series = new Series({ method, route, status })));
    return series;
  }

  observe(labels: Readonly<Record<DurationLabels, string>>, seconds: number): void {
    this.labels(labels.method, labels.route, labels.status).observe(seconds);
  }

  /** The samples in prom-client's form: cumulative buckets with `le`, then `_sum` and `_count`. */
  async get(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: Sample[] }> {
    const values: Sample[] = [];
    for (const s of this.series.values()) {
      if (s.count === 0) continue; // reset and not observed since, as prom-client shows it
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += s.perBucket[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...s.labels }, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...s.labels }, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Zeroes every series in place: the handlers keep the series they bound, and go on counting. */
  reset(): void {
    for (const series of this.series.values()) series.clear();
  }
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  // The event-loop delay histogram samples every 100 ms rather than prom-client's 10: a 10 ms
  // timer wakes an idle process 100 times a second, most of what an idle instance spends, and a
  // login spends most of its time waiting on argon2, so those wakeups land on the logins' CPU. A scrape every 15 s still
  // gets 150 samples.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  const httpDuration = new DurationHistogram() satisfies RegistryMetric;
  // prom-client's types name only its own metric classes (and its type as an enum); its registry
  // reads a metric's name, help, type, aggregator, get() and reset(), checked just above.
  registry.registerMetric(httpDuration as unknown as Metric);
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
