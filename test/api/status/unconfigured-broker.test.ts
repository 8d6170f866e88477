// A fresh install has no broker to probe (BROKER_HEALTH_URL unset). The broker stays reported down
// with the detail "not configured", as the contract words it, so /status answers 503 "degraded"
// as the contract's rule says (every component ok, or degraded); but it is not an outage: the
// page, the overall badge and the summary say every configured system is operational, no
// automatic incident opens however long
// the server runs, the broker's history stays "no data", and the log says so once at start rather
// than warning at every refresh. A configured broker that is down still opens its incident.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { StatusRefresher } from '../../../src/domain/status/refresher.js';
import { trackAutomaticIncidents } from '../../../src/domain/status/incidents.js';
import type { Rollup } from '../../../src/domain/status/rollup.js';
import { DAY_MS, moveClockTo, startStatusFixture, useStatusFixture, type StatusFixture } from '../../support/status.js';

const lines: { level: number; msg: string }[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
    done();
  },
});
const f = useStatusFixture({ env: { BROKER_HEALTH_URL: undefined }, logLevel: 'info', logStream });
const S = 1000;
const NOT_CONFIGURED_LINE = 'status: broker not configured (BROKER_HEALTH_URL unset); shown as "not configured", no incident';

/** Refreshes by the background refresher, one 10-second window apart, in windows of their own (a window's lease stays in a shared Redis). */
function refreshes(g: StatusFixture): (count: number) => Promise<void> {
  const refresher = new StatusRefresher(g.s.deps);
  let at = g.s.clock.now().getTime() + Math.floor(1000 + Math.random() * 3000) * DAY_MS;
  return async (count) => {
    for (let i = 0; i < count; i++) {
      at += 10 * S;
      moveClockTo(g.s.clock, at);
      assert.equal(await refresher.tick(), true);
    }
  };
}

const automatic = (g: StatusFixture) => g.s.deps.db.statusIncident.findMany({ where: { automatic: true }, include: { updates: true } });

test('without BROKER_HEALTH_URL: 503 "degraded", the broker "not configured"; the page, badges and summary name it, not an outage', async () => {
  // The files before this one on the same database may have left incidents or maintenance open.
  await f.s.deps.db.statusIncident.updateMany({ where: { resolvedAt: null }, data: { status: 'resolved', resolvedAt: f.s.clock.now() } });
  await f.s.deps.db.statusMaintenance.deleteMany({});
  await f.reset();
  const r = await f.status();
  assert.equal(r.status, 503, r.text);
  assert.equal(r.json.status, 'degraded');
  assert.deepEqual(r.json.components[0], { name: 'broker', ok: false, detail: 'not configured', latency_ms: null });
  assert.equal(r.json.components[1].ok, true);
  assert.equal(f.broker.hits, 0, 'nothing is probed for the broker');

  const page = await f.status({ headers: { accept: 'text/html' } });
  assert.equal(page.status, 503, 'the code mirrors the status field');
  assert.match(page.text, /<p class="verdict ok" data-status="degraded">All configured systems operational \(broker not configured\)( · \d+ open incidents? below)?<\/p>/);
  assert.match(page.text, /<tr data-component="broker">.*?<span class="marker down">down<\/span>.*?<td class="detail">not configured<\/td>/);

  assert.deepEqual((await f.zone('/status/badge.json')).json, { schemaVersion: 1, label: 'status', message: 'operational', color: 'brightgreen' });
  assert.match((await f.zone('/status/broker/badge.svg')).text, /broker: not configured/);
  const summary = (await f.zone('/api/v2/summary.json')).json;
  assert.deepEqual(summary.status, { indicator: 'none', description: 'All Systems Operational' });
  assert.deepEqual(summary.components.map((c: { id: string; status: string }) => [c.id, c.status]), [['api', 'operational'], ['edge', 'operational']]);
  const gql = await f.s.request('/graphql', { method: 'POST', body: { query: '{ status { status components { name ok detail } } }' } });
  assert.equal(gql.json.data.status.status, 'degraded');
});

test('without BROKER_HEALTH_URL: no incident past the 90 s mark, no broker history, one info line at start and no warning', async () => {
  const db = f.s.deps.db;
  await db.statusIncident.deleteMany({ where: { automatic: true } });
  await db.statusComponentStreak.deleteMany({});
  await db.statusHistoryDay.deleteMany({});
  await db.statusHistoryMinute.deleteMany({});
  await f.reset();
  const tick = refreshes(f);
  await tick(12); // two minutes of refreshes
  assert.deepEqual(await automatic(f), []);
  const r = await f.status();
  assert.equal(r.status, 503);
  // Incidents an operator opened (other test files share the database) may be listed too.
  assert.deepEqual(r.json.incidents.filter((i: { automatic: boolean }) => i.automatic), []);
  assert.deepEqual((await f.zone('/status/incidents')).json.incidents.filter((i: { automatic: boolean }) => i.automatic), []);

  const history = (await f.zone('/status/history')).json.components as { name: string; uptime: Record<string, number | null>; days: { checks: number }[] }[];
  const broker = history.find((c) => c.name === 'broker')!;
  assert.deepEqual(broker.uptime, { '24h': null, '7d': null, '30d': null, '90d': null }, 'nothing measured');
  assert.ok(broker.days.every((d) => d.checks === 0));
  assert.equal(history.find((c) => c.name === 'api')!.uptime['24h'], 100);

  const said = (msg: string) => lines.filter((l) => l.msg === msg);
  assert.equal(said(NOT_CONFIGURED_LINE).length, 1);
  assert.equal(said(NOT_CONFIGURED_LINE)[0]!.level, 30, 'info');
  assert.deepEqual(said('status roll-up degraded'), []);
});

test('an automatic broker incident left open from before the URL was removed is resolved, saying why', async () => {
  const db = f.s.deps.db;
  await db.statusIncident.deleteMany({ where: { automatic: true } });
  await db.statusComponentStreak.upsert({ where: { component: 'broker' }, create: { component: 'broker', failures: 5, updatedAt: new Date() }, update: { failures: 5 } });
  // As an earlier configuration saw it: the broker answering 503.
  const down: Rollup = {
    status: 'degraded',
    checked_at: f.s.clock.now().toISOString(),
    incidents: [],
    maintenances: [],
    components: [
      { name: 'broker', ok: false, detail: 'status 503', latency_ms: 3 },
      { name: 'api', ok: true, detail: 'ok', latency_ms: 1 },
      { name: 'edge', ok: true, detail: 'ok', latency_ms: null },
    ],
  };
  assert.deepEqual((await trackAutomaticIncidents(f.s.deps, down)).opened, ['broker']);
  await refreshes(f)(1);
  const [incident] = await automatic(f);
  assert.ok(incident?.resolvedAt, 'resolved');
  assert.deepEqual(
    incident.updates.find((u) => u.status === 'resolved')?.message,
    'Resolved automatically: broker is no longer checked (its health URL is not configured).',
  );
});

test('a configured broker that is down still opens an incident and turns /status 503', async () => {
  const g = await startStatusFixture();
  try {
    const db = g.s.deps.db;
    await db.statusIncident.deleteMany({ where: { automatic: true } });
    await db.statusComponentStreak.deleteMany({});
    await g.reset();
    await g.broker.set(503);
    await refreshes(g)(10);
    const incidents = await automatic(g);
    assert.deepEqual(incidents.map((i) => [i.title, i.resolvedAt]), [['Broker unavailable', null]]);
    const r = await g.status();
    assert.equal(r.status, 503);
    assert.equal(r.json.status, 'degraded');
    assert.deepEqual(r.json.components[0], { name: 'broker', ok: false, detail: 'status 503', latency_ms: r.json.components[0].latency_ms });
  } finally {
    await g.close();
  }
});
