// During an outage every uncached card request fails the same way; one line per interval tells
// the operator as much as thousands would, and keeps a crawler from flooding the logs.
import { performance } from 'node:perf_hooks';

export function throttled<A extends unknown[]>(log: (...args: A) => void, intervalMs = 10_000): (...args: A) => void {
  let last = -Infinity;
  return (...args: A) => {
    const now = performance.now();
    if (now - last < intervalMs) return;
    last = now;
    log(...args);
  };
}
