// Request durations for the raw hot-path handlers (zone host). prom-client's observe() hashes and
// validates the label set on every call, which measured at several microseconds per request under
// load: more than the rest of a cached /status answer. Here each fixed label set is resolved once
// and observe() is a bucket search and three additions. At scrape time the series are merged into
// the regular prom-client histogram of the same name, so /metrics shows one metric family.
import type { Histogram } from 'prom-client';

type Labels = Record<string, string>;
/** One exported sample, as prom-client's registry reads them from a metric's get(). */
interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}
interface Exported {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  values: Sample[];
}

export interface HotSeries {
  observe(seconds: number): void;
}

class Series implements HotSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(seconds: number): void {
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]!) {
        this.counts[i]!++;
        break;
      }
    }
    this.sum += seconds;
    this.count++;
  }
}

const keyOf = (metricName: string, labels: Record<string, string | number>): string =>
  `${metricName}|${Object.keys(labels)
    .sort()
    .map((k) => `${k}=${String(labels[k])}`)
    .join(',')}`;

export class HotHistogram<L extends string> {
  private readonly series = new Map<string, Series>();

  constructor(
    private readonly base: Histogram<L>,
    private readonly bounds: readonly number[],
  ) {}

  /** The series for one label set; callers keep it instead of passing labels per observation. */
  child(labels: Record<L, string>): HotSeries {
    const key = keyOf('', labels);
    let s = this.series.get(key);
    if (!s) {
      s = new Series({ ...labels }, this.bounds);
      this.series.set(key, s);
    }
    return s;
  }

  /** Registry.resetMetrics() calls this on every registered metric. */
  reset(): void {
    this.base.reset();
    // Handlers keep their series objects, so zero them rather than dropping them.
    for (const s of this.series.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }

  get name(): string {
    return (this.base as unknown as { name: string }).name;
  }

  /** The base histogram's values with these series added (same label set: summed). For the registry. */
  async get(): Promise<Exported> {
    // prom-client builds fresh objects on every get(), so adding into them is safe.
    const merged = (await this.base.get()) as unknown as Exported;
    const byKey = new Map<string, Sample>();
    for (const v of merged.values) byKey.set(keyOf(v.metricName ?? merged.name, v.labels), v);
    const add = (metricName: string, labels: Record<string, string | number>, value: number): void => {
      const existing = byKey.get(keyOf(metricName, labels));
      if (existing) existing.value += value;
      else merged.values.push({ metricName, labels, value });
    };
    for (const s of this.series.values()) {
      if (s.count === 0) continue;
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += s.counts[i]!;
        add(`${merged.name}_bucket`, { ...s.labels, le: bound }, cumulative);
      });
      add(`${merged.name}_bucket`, { ...s.labels, le: '+Inf' }, s.count);
      add(`${merged.name}_sum`, s.labels, s.sum);
      add(`${merged.name}_count`, s.labels, s.count);
    }
    return merged;
  }
}
