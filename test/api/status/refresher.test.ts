// The background refresh (API.md 11): every 10 s window one instance, the holder of that window's
// lease in the shared cache, refreshes the roll-up without any request, so the history has no
// gaps; requests inside the window still never probe and each probe is counted once. Proved on
// one instance with the injected clock, with real timers (start/stop), and with two instances
// sharing Redis.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { REFRESH_INTERVAL_MS, StatusRefresher } from '../../../src/domain/status/refresher.js';
import { ROLLUP_KEY, statusService } from '../../../src/domain/status/service.js';
import { needs } from '../../support/backends.js';
import { FakeUpstream } from '../../support/fake-upstream.js';
import { request } from '../../support/http.js';
import { startTestServer, type Server, type TestServer } from '../../support/server.js';
import { midnightOf, moveClockTo, statusCount, useStatusFixture, ZONE } from '../../support/status.js';

const f = useStatusFixture();
const W = REFRESH_INTERVAL_MS;

/** The start of the next 10 s window on this server's clock. */
const nextWindow = (s: Server) => (Math.floor(s.clock.now().getTime() / W) + 1) * W;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await sleep(10);
}

/** Today's checks of a component in the history table (the instance's database). */
async function checksToday(s: Server, component: string): Promise<number> {
  const row = await s.deps.db.statusHistoryDay.findUnique({
    where: { component_day: { component, day: new Date(midnightOf(s.clock.now().getTime())) } },
  });
  return row?.checks ?? 0;
}

test('a tick refreshes without any request: one probe each, counted once, recorded once; the window is then leased', async () => {
  await f.reset();
  moveClockTo(f.s.clock, nextWindow(f.s) + 1_000);
  const refresher = new StatusRefresher(f.s.deps);
  const counted = await statusCount(f.s, 'edge', true);
  const brokerProbes = await statusCount(f.s, 'broker', true);
  const recorded = await checksToday(f.s, 'broker');

  assert.equal(await refresher.tick(), true);
  assert.equal(f.broker.hits, 1);
  assert.equal(f.api.hits, 1);
  assert.equal((await statusCount(f.s, 'edge', true)) - counted, 1, 'the refresh is counted once');
  assert.equal((await statusCount(f.s, 'broker', true)) - brokerProbes, 1);
  assert.equal((await checksToday(f.s, 'broker')) - recorded, 1, 'and recorded once');

  // Requests inside the window get that roll-up without probing.
  f.s.clock.advance(4_000);
  const r = await f.status();
  assert.equal(r.status, 200);
  assert.equal(f.broker.hits, 1);
  // A second turn in the same window: the lease is taken, nothing runs.
  assert.equal(await refresher.tick(), false);
  assert.equal(f.broker.hits, 1);

  // The next window refreshes again.
  f.s.clock.advance(W);
  await f.broker.set(503);
  assert.equal(await refresher.tick(), true);
  assert.equal(f.broker.hits, 2);
  assert.equal((await f.status()).status, 503, 'requests see the background refresh');
  assert.equal(f.broker.hits, 2);
  assert.equal((await statusCount(f.s, 'edge', true)) - counted, 2);
  assert.equal((await checksToday(f.s, 'broker')) - recorded, 2);
});

test('the latency histogram observes each probe once, per probed component', async () => {
  await f.reset();
  const metric = async () => (await f.s.request('/metrics')).text;
  const count = (text: string, component: string) =>
    Number(new RegExp(`^service_edge_status_probe_duration_seconds_count\\{component="${component}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  const before = await metric();
  await f.api.set('hang');
  await f.status();
  const after = await metric();
  assert.equal(count(after, 'broker') - count(before, 'broker'), 1);
  assert.equal(count(after, 'api') - count(before, 'api'), 1);
  assert.doesNotMatch(after, /service_edge_status_probe_duration_seconds_count\{component="edge"\}/, 'edge is not probed');
  // The hung api took the 2 s bound: in the 2.5 s bucket, not in the 1 s one.
  const bucket = (text: string, le: string) =>
    Number(new RegExp(`^service_edge_status_probe_duration_seconds_bucket\\{le="${le}",component="api"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  assert.equal(bucket(after, '2.5') - bucket(before, '2.5'), 1);
  assert.equal(bucket(after, '1') - bucket(before, '1'), 0);
});

test('a roll-up that started after the boundary is refreshed at its expiry, not before', async () => {
  await f.reset();
  const boundary = nextWindow(f.s);
  moveClockTo(f.s.clock, boundary + 300);
  const first = await f.status(); // a request refreshed it 300 ms into the window
  assert.equal(f.broker.hits, 1);
  moveClockTo(f.s.clock, boundary + W + 50); // the next window, 250 ms before that roll-up expires
  const started = Date.now();
  assert.equal(await new StatusRefresher(f.s.deps).tick(), true);
  const waited = Date.now() - started;
  assert.equal(f.broker.hits, 2, 'the tick refreshed');
  const second = await f.status();
  assert.ok(
    Date.parse(second.json.checked_at) - Date.parse(first.json.checked_at) >= W,
    `not before the first roll-up expired (the tick waited ${waited} ms)`,
  );
  assert.equal(f.broker.hits, 2);
});

test('a tick whose timer fires before the roll-up has expired on the clock sleeps the rest', async () => {
  await f.reset();
  const boundary = nextWindow(f.s);
  moveClockTo(f.s.clock, boundary + 300);
  // This instance's clock falls 20 ms behind the timers while the tick sleeps: its timer ends
  // before the clock reaches the expiry it was set for (timers may fire a millisecond early).
  let lagMs = 0;
  const deps = { ...f.s.deps, clock: () => new Date(f.s.clock.now().getTime() - lagMs) };
  const service = statusService(deps);
  const first = await service.current();
  assert.equal(f.broker.hits, 1);
  moveClockTo(f.s.clock, boundary + W + 50);
  const lagging = setTimeout(() => (lagMs = 20), 100);
  try {
    assert.equal(await new StatusRefresher(deps, service).tick(), true);
  } finally {
    clearTimeout(lagging);
  }
  assert.equal(f.broker.hits, 2, 'the tick refreshed once the roll-up had expired on its clock');
  const second = await service.current();
  assert.ok(Date.parse(second.rollup.checked_at) - Date.parse(first.rollup.checked_at) >= W, 'not before the first expired');
});

test('start() refreshes at the window boundary with real timers; stop() ends a waiting tick promptly', async () => {
  await f.reset();
  moveClockTo(f.s.clock, nextWindow(f.s) - 150);
  const refresher = new StatusRefresher(f.s.deps).start();
  try {
    await waitFor(() => f.broker.hits === 1, 3_000);
    assert.equal(f.broker.hits, 1, 'one refresh at the boundary');
  } finally {
    await refresher.stop();
  }
  assert.equal(refresher.started, false);

  // A tick waiting for a roll-up's expiry: stop() does not wait for it.
  await f.reset();
  const boundary = nextWindow(f.s);
  moveClockTo(f.s.clock, boundary - W + 5_000);
  await f.status();
  moveClockTo(f.s.clock, boundary - 100);
  const waiting = new StatusRefresher(f.s.deps).start();
  await sleep(400); // the tick has taken the lease and waits ~4.7 s for the expiry
  const stopping = Date.now();
  await waiting.stop();
  assert.ok(Date.now() - stopping < 500, `stopped promptly (${Date.now() - stopping} ms)`);
  assert.equal(f.broker.hits, 1, 'no refresh after stop');
});

test(
  'two instances sharing Redis: each window exactly one of them refreshes, on ticks and on timers',
  needs(['REDIS_URL'], 'two instances sharing the window lease through Redis'),
  async () => {
    await f.reset();
    let second: TestServer | null = null;
    try {
      second = await startTestServer({ env: { ZONE, BROKER_HEALTH_URL: f.broker.url, API_HEALTH_URL: f.api.url } });
      const other = second;
      const align = (at: number) => {
        moveClockTo(f.s.clock, at);
        moveClockTo(other.clock, at);
      };
      const a = new StatusRefresher(f.s.deps);
      const b = new StatusRefresher(other.deps);
      const countedBefore = (await statusCount(f.s, 'edge', true)) + (await statusCount(other, 'edge', true));
      const start = nextWindow(f.s);
      const windows = 4;
      for (let i = 0; i < windows; i++) {
        // One more second into each window than into the previous one: the previous roll-up was
        // stamped a few ms after its own alignment (lease, shared read), so aligning at the same
        // offset could land a moment inside its 10 s and rightly find it still fresh.
        align(start + i * W + 1_000 + i * 1_000);
        const turns = await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
        assert.equal(turns.filter(Boolean).length, 1, `window ${i}: one lease holder (${turns.join(', ')})`);
      }
      assert.equal(f.broker.hits, windows, 'one broker probe per window across both instances');
      assert.equal(f.api.hits, windows);
      const counted = (await statusCount(f.s, 'edge', true)) + (await statusCount(other, 'edge', true)) - countedBefore;
      assert.equal(counted, windows, 'each refresh counted once, by the instance that probed');

      // Real timers on both: one refresh at the next boundary, not two.
      align(start + windows * W + W - 150);
      a.start();
      b.start();
      try {
        await waitFor(() => f.broker.hits === windows + 1, 3_000);
        await sleep(300);
        assert.equal(f.broker.hits, windows + 1, 'one instance refreshed at the boundary');
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
    } finally {
      await second?.close();
    }
  },
);

test('npm start runs the refresher: history without any request, and SIGTERM stops it with a clean exit', async () => {
  const broker = await FakeUpstream.start();
  const dataDir = mkdtempSync(join(tmpdir(), 'status-refresher-main-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ZONE, BROKER_HEALTH_URL: broker.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await waitFor(() => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out) || child.exitCode !== null, 60_000);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    assert.ok(url, `listening:\n${out}`);
    // No request at all: the refresher probes at the next 10 s boundary.
    await waitFor(() => broker.hits >= 1, 12_000);
    assert.ok(broker.hits >= 1, 'the broker was probed without any request');
    const history = await request(url, '/status/history', { host: ZONE });
    assert.equal(history.status, 200);
    const today = history.json.components[0].days[89];
    assert.ok(today.checks >= 1 && today.failures === 0, `recorded: ${JSON.stringify(today)}`);
    const stopping = Date.now();
    child.kill('SIGTERM');
    assert.equal(await exited, 0, out);
    assert.ok(Date.now() - stopping < 8_000, 'stopped well before the 10 s force exit');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await broker.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("single flight across instances: a lock taken just after the winner shared and let go adopts the winner's roll-up, no second probe", async () => {
  await f.reset();
  // The winner: probes once and shares its roll-up (then releases the lock).
  const winner = await statusService(f.s.deps).current();
  assert.equal(f.broker.hits, 1);
  f.broker.hits = 0;
  // Another instance read the shared cache just before the winner wrote to it (its first read
  // finds nothing), then takes the lock the winner has just released.
  let firstRead = true;
  const cache = new Proxy(f.s.deps.cache, {
    get(target, name, receiver) {
      if (name === 'get') {
        return async (key: string) => {
          if (key === ROLLUP_KEY && firstRead) {
            firstRead = false;
            return null;
          }
          return target.get(key);
        };
      }
      const value = Reflect.get(target, name, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const late = await statusService({ ...f.s.deps, cache }).current();
  assert.equal(firstRead, false, 'the first read missed');
  assert.equal(f.broker.hits, 0, 'no second probe');
  assert.equal(late.rollup.checked_at, winner.rollup.checked_at, "the winner's roll-up");
});
