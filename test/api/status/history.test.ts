// Status history (API.md 11): the background refresh records one check per component per probe,
// per UTC day and per minute; GET /status/history gives 90 days and the 24 h / 7 / 30 / 90-day
// uptimes, computed exactly on the injected clock while a fake broker answers 200, 503, hangs
// or refuses on a schedule; rows past the retention are purged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstMinute, summarizeHistory, uptimeOf } from '../../../src/domain/status/history.js';
import { StatusRefresher } from '../../../src/domain/status/refresher.js';
import type { UpstreamMode } from '../../support/fake-upstream.js';
import { DAY_MS, midnightOf, moveClockTo, useStatusFixture } from '../../support/status.js';

const f = useStatusFixture();
const H = 3600 * 1000;
const S = 1000;
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);

test('uptime: a percentage with two decimals, rounded down (one failure never shows 100), null without checks', () => {
  assert.equal(uptimeOf(0, 0), null);
  assert.equal(uptimeOf(3, 0), 100);
  assert.equal(uptimeOf(3, 1), 66.66);
  assert.equal(uptimeOf(7, 4), 42.85);
  assert.equal(uptimeOf(8, 4), 50);
  assert.equal(uptimeOf(1_000_000, 1), 99.99);
  assert.equal(uptimeOf(5, 5), 0);
});

test('summary: 90 days oldest first ending today, windows of 7, 30 and 90 days, 24 h from the minute counts', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  const day = (iso: string) => new Date(`${iso}T00:00:00Z`);
  const h = summarizeHistory(
    now,
    [
      { component: 'broker', day: day('2026-03-01'), checks: 10, failures: 1 },
      { component: 'broker', day: day('2026-02-23'), checks: 10, failures: 0 }, // 6 days ago: in 7d
      { component: 'broker', day: day('2026-02-22'), checks: 10, failures: 10 }, // 7 days ago: in 30d, not 7d
      { component: 'broker', day: day('2025-12-02'), checks: 4, failures: 1 }, // 89 days ago: the first shown
      { component: 'broker', day: day('2025-12-01'), checks: 99, failures: 99 }, // 90 days ago: not shown
      { component: 'api', day: day('2026-03-01'), checks: 3, failures: 0 },
    ],
    [{ component: 'broker', checks: 1440, failures: 3 }],
  );
  assert.deepEqual(h.components.map((c) => c.name), ['broker', 'api', 'edge']);
  const [broker, api, edge] = h.components;
  assert.equal(broker!.days.length, 90);
  assert.deepEqual(broker!.days[0], { date: '2025-12-02', uptime: 75, checks: 4, failures: 1 });
  assert.deepEqual(broker!.days[89], { date: '2026-03-01', uptime: 90, checks: 10, failures: 1 });
  assert.deepEqual(broker!.days[83], { date: '2026-02-23', uptime: 100, checks: 10, failures: 0 });
  assert.deepEqual(broker!.days[82], { date: '2026-02-22', uptime: 0, checks: 10, failures: 10 });
  assert.deepEqual(broker!.days[1], { date: '2025-12-03', uptime: null, checks: 0, failures: 0 });
  assert.deepEqual(broker!.uptime, { '24h': 99.79, '7d': 95, '30d': 63.33, '90d': 64.7 });
  assert.deepEqual(api!.uptime, { '24h': null, '7d': 100, '30d': 100, '90d': 100 });
  assert.deepEqual(edge!.uptime, { '24h': null, '7d': null, '30d': null, '90d': null });
  assert.ok(edge!.days.every((d) => d.uptime === null && d.checks === 0));
});

test('background refreshes on a schedule of 200, 503, hang, refuse: exact days, uptimes and the 24 h window; no probe inside the window', async () => {
  const db = f.s.deps.db;
  await db.statusHistoryDay.deleteMany({});
  await db.statusHistoryMinute.deleteMany({});
  await f.reset();
  // A UTC midnight years ahead, so the rows the other status tests write today stay out of it.
  const d0 = midnightOf(Date.now() + (400 + Math.floor(Math.random() * 3000)) * DAY_MS);
  const refresher = new StatusRefresher(f.s.deps);
  const tickAt = async (at: number, mode: UpstreamMode) => {
    moveClockTo(f.s.clock, at);
    await f.broker.set(mode);
    assert.equal(await refresher.tick(), true, 'this instance holds the window lease');
  };
  await tickAt(d0 + 1 * H, 200);
  await tickAt(d0 + 1 * H + 20 * S, 503);
  await tickAt(d0 + 1 * H + 40 * S, 'hang');
  await tickAt(d0 + 1 * H + 60 * S, 'refuse');
  await tickAt(d0 + 24 * H - 10 * S, 200); // 23:59:50, still day 0
  await tickAt(d0 + 24 * H + 10 * S, 503); // 00:00:10 of day 1
  await tickAt(d0 + 24 * H + 30 * S, 200);
  assert.equal(f.broker.hits, 6, 'six probes reached the broker (the refused one never did)');

  // Inside the window of the last refresh: the history is read, nothing is probed.
  moveClockTo(f.s.clock, d0 + 24 * H + 35 * S);
  const r = await f.zone('/status/history');
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  assert.equal(r.headers['cache-control'], 'no-cache');
  assert.equal(f.broker.hits, 6, 'no probe inside the window');
  assert.deepEqual(Object.keys(r.json), ['components']);
  const [broker, api, edge] = r.json.components;
  assert.deepEqual(r.json.components.map((c: { name: string }) => c.name), ['broker', 'api', 'edge']);
  assert.deepEqual(Object.keys(broker), ['name', 'uptime', 'days']);
  assert.equal(broker.days.length, 90);
  assert.deepEqual(broker.days[89], { date: date(d0 + DAY_MS), uptime: 50, checks: 2, failures: 1 });
  assert.deepEqual(broker.days[88], { date: date(d0), uptime: 40, checks: 5, failures: 3 });
  assert.deepEqual(broker.days[0], { date: date(d0 - 88 * DAY_MS), uptime: null, checks: 0, failures: 0 });
  assert.ok(broker.days.slice(0, 88).every((d: { checks: number }) => d.checks === 0));
  // 7 checks, 4 failed, all within the last 24 hours.
  assert.deepEqual(broker.uptime, { '24h': 42.85, '7d': 42.85, '30d': 42.85, '90d': 42.85 });
  assert.deepEqual(api.uptime, { '24h': 100, '7d': 100, '30d': 100, '90d': 100 });
  assert.deepEqual(api.days[88], { date: date(d0), uptime: 100, checks: 5, failures: 0 });
  assert.deepEqual(edge.days[89], { date: date(d0 + DAY_MS), uptime: 100, checks: 2, failures: 0 });

  // One hour later the window has expired: this request refreshes (broker 200) and the 24 h
  // window no longer holds the first three checks of day 0 (01:00:00, 01:00:20, 01:00:40).
  moveClockTo(f.s.clock, d0 + 25 * H + 35 * S);
  const later = await f.zone('/status/history');
  assert.equal(f.broker.hits, 7);
  const b = later.json.components[0];
  assert.deepEqual(b.days[89], { date: date(d0 + DAY_MS), uptime: 66.66, checks: 3, failures: 1 });
  assert.deepEqual(b.uptime, { '24h': 60, '7d': 50, '30d': 50, '90d': 50 });
  assert.equal(new Date(firstMinute(f.s.clock.now())).getTime(), d0 + 1 * H + 60 * S, 'the 24 h window starts at 01:01 of day 0');
});

test('rows past the retention are purged: days older than 90 days, minutes older than 24 hours', async () => {
  const db = f.s.deps.db;
  const base = midnightOf(f.s.clock.now().getTime());
  const old = [
    { component: 'broker', day: new Date(base - 90 * DAY_MS), checks: 5, failures: 5 },
    { component: 'broker', day: new Date(base - 89 * DAY_MS), checks: 4, failures: 0 },
  ];
  await db.statusHistoryDay.deleteMany({ where: { day: { in: old.map((o) => o.day) } } });
  await db.statusHistoryDay.createMany({ data: old });
  await db.statusHistoryMinute.create({ data: { component: 'broker', minute: new Date(base - 2 * DAY_MS), checks: 1, failures: 1 } });
  // The last purge ran when this instance first recorded; an hour later the next record purges.
  moveClockTo(f.s.clock, base + 12 * H);
  assert.equal(await new StatusRefresher(f.s.deps).tick(), true);
  const now = f.s.clock.now();
  assert.equal(await db.statusHistoryDay.count({ where: { day: { lt: new Date(base - 89 * DAY_MS) } } }), 0, 'the 91st day back is gone');
  assert.equal(await db.statusHistoryDay.count({ where: { day: new Date(base - 89 * DAY_MS) } }), 1, 'the 90th is kept');
  assert.equal(await db.statusHistoryMinute.count({ where: { minute: { lt: firstMinute(now) } } }), 0);
  const r = await f.zone('/status/history');
  assert.deepEqual(r.json.components[0].days[0], { date: date(base - 89 * DAY_MS), uptime: 100, checks: 4, failures: 0 });
});

test('/status/history: GET and HEAD only; HEAD has the headers without the body', async () => {
  const head = await f.zone('/status/history', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  assert.ok(Number(head.headers['content-length']) > 1000);
  const post = await f.zone('/status/history', { method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
});

test('history reads that fail: /status answers from the probes alone, /status/history keeps the last history read', async () => {
  await f.reset();
  const before = await f.zone('/status/history');
  assert.equal(before.status, 200);
  const checks = (r: { json: { components: { days: { checks: number }[] }[] } }) => r.json.components[0]!.days[89]!.checks;
  const db = f.s.deps.db;
  const findMany = db.statusHistoryDay.findMany;
  db.statusHistoryDay.findMany = (() => Promise.reject(new Error('ECONNREFUSED'))) as unknown as typeof findMany;
  try {
    assert.notEqual(db.statusHistoryDay.findMany, findMany, 'the stub is in place');
    await f.reset();
    const r = await f.status();
    assert.equal(r.status, 200);
    const h = await f.zone('/status/history');
    assert.equal(h.status, 200);
    assert.equal(h.text, before.text, 'the last history read, without the check just recorded');
  } finally {
    db.statusHistoryDay.findMany = findMany;
  }
  const after = await f.zone('/status/history');
  assert.equal(checks(after), checks(before) + 1, 'read again once the database answers: the recorded check is there');
});
