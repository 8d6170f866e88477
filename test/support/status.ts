// Shared set-up for the status tests: a server with fake broker and api upstreams, requests on
// the zone host, a fresh roll-up window per test, and readings of the status counter.
import { LOCK_KEY, ROLLUP_KEY, ROLLUP_TTL_MS } from '../../src/domain/status/service.js';
import { lazyFixture, useFixture, type FixtureOptions } from './fixture.js';
import type { Reply, RequestOptions } from './http.js';
import { startTestServer, type Server, type StartOptions, type TestClock } from './server.js';
import { FakeUpstream } from './fake-upstream.js';

export const ZONE = 'status-test.localhost';

export interface StatusFixture {
  readonly s: Server;
  readonly broker: FakeUpstream;
  readonly api: FakeUpstream;
  status(opts?: RequestOptions): Promise<Reply>;
  /** A request on the zone host: `/status/history`, `/status/badge.svg`, … */
  zone(path: string, opts?: RequestOptions): Promise<Reply>;
  /** Ends the current 10-second window and brings both upstreams back to 200. */
  reset(): Promise<void>;
}

export interface RunningStatusFixture extends StatusFixture {
  close(): Promise<void>;
}

export async function startStatusFixture(opts: StartOptions = {}): Promise<RunningStatusFixture> {
  const broker = await FakeUpstream.start();
  const api = await FakeUpstream.start();
  const s = await startTestServer({
    ...opts,
    env: { ZONE, BROKER_HEALTH_URL: broker.url, API_HEALTH_URL: api.url, ...opts.env },
  });
  // Tests of one run share Redis: a roll-up left by an earlier file must not leak in.
  await s.deps.cache.del(ROLLUP_KEY, LOCK_KEY);
  return {
    s,
    broker,
    api,
    status: (o = {}) => s.request('/status', { host: ZONE, ...o }),
    zone: (path, o = {}) => s.request(path, { host: ZONE, ...o }),
    async reset() {
      s.clock.advance(ROLLUP_TTL_MS + 1);
      await broker.set(200);
      await api.set(200);
      broker.hits = 0;
      api.hits = 0;
    },
    async close() {
      await s.close();
      await broker.close();
      await api.close();
    },
  };
}

/** The status fixture for the tests of the file (or describe block). */
export function useStatusFixture(opts: StartOptions | (() => StartOptions) = {}, fixture: FixtureOptions = {}): StatusFixture {
  return lazyFixture(useFixture(() => startStatusFixture(typeof opts === 'function' ? opts() : opts), (f) => f.close(), fixture));
}

/** The value of one series of service_edge_status_check_total as /metrics shows it (0 if absent). */
export async function statusCount(s: Server, component: string, ok: boolean): Promise<number> {
  const text = (await s.request('/metrics')).text;
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`service_edge_status_check_total{component="${component}",ok="${ok}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** Moves a test clock to the given time (ms since the epoch); real time keeps flowing from there. */
export function moveClockTo(clock: TestClock, ms: number): void {
  clock.advance(ms - clock.now().getTime());
}

export const DAY_MS = 24 * 3600 * 1000;

/** UTC midnight of the day `ms` falls in. */
export const midnightOf = (ms: number): number => ms - (ms % DAY_MS);
