// The raw handlers' request durations in the HTTP duration histogram, each (method, route,
// status) series bound once with labels(). A handler answers the same (method, route, status)
// request after request, so the last series is remembered; any other combination is three map
// lookups. Routes are fixed labels: never a raw path or host.
import { performance } from 'node:perf_hooks';
import type { DurationHistogram, DurationSeries as Series } from '../../infra/observability/metrics.js';

export type ObserveDuration = (method: string | undefined, route: string, status: number, startMs: number) => void;

const METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE']);

export function routeDurations(histogram: Pick<DurationHistogram, 'labels'>): ObserveDuration {
  // route → status → method: no key string is built per request.
  const byRoute = new Map<string, Map<number, Map<string, Series>>>();
  const seriesOf = (rawMethod: string | undefined, route: string, status: number): Series => {
    const method = rawMethod !== undefined && METHODS.has(rawMethod) ? rawMethod : 'other';
    let byStatus = byRoute.get(route);
    if (!byStatus) byRoute.set(route, (byStatus = new Map()));
    let byMethod = byStatus.get(status);
    if (!byMethod) byStatus.set(status, (byMethod = new Map()));
    let series = byMethod.get(method);
    if (!series) byMethod.set(method, (series = histogram.labels(method, route, String(status))));
    return series;
  };
  let lastMethod: string | undefined;
  let lastRoute = '';
  let lastStatus = 0;
  let last: Series | null = null;
  return (rawMethod, route, status, startMs) => {
    const seconds = (performance.now() - startMs) / 1000;
    if (last === null || status !== lastStatus || route !== lastRoute || rawMethod !== lastMethod) {
      last = seriesOf(rawMethod, route, status);
      lastMethod = rawMethod;
      lastRoute = route;
      lastStatus = status;
    }
    last.observe(seconds);
  };
}
