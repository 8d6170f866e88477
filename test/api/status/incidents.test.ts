// Incidents and maintenance (API.md section 17), first part: the operators' API on the API host
// (bearer INTERNAL_API_TOKEN), the public 90-day list on the zone host, and automatic incidents:
// a component down on 3 consecutive refreshes opens one (never two), a refresh that finds it up
// resolves it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusRefresher } from '../../../src/domain/status/refresher.js';
import { assertProblem } from '../../support/problem.js';
import { INTERNAL_TOKEN } from '../../support/tunnels.js';
import { DAY_MS, moveClockTo, useStatusFixture } from '../../support/status.js';

const f = useStatusFixture({ env: { INTERNAL_API_TOKEN: INTERNAL_TOKEN } });
const S = 1000;

const operator = (path: string, body?: unknown, method = 'POST', token = INTERNAL_TOKEN) =>
  f.s.request(path, { method, bearer: token, ...(body === undefined ? {} : { body }) });

/** The public list, past the few seconds an instance keeps it. */
async function publicList(): Promise<Array<Record<string, any>>> { // eslint-disable-line @typescript-eslint/no-explicit-any -- read as JSON
  f.s.clock.advance(6 * S);
  const r = await f.zone('/status/incidents');
  assert.equal(r.status, 200, r.text);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  return r.json.incidents;
}

const INCIDENT = { title: 'Slow tunnel starts', impact: 'minor', components: ['edge', 'broker'], status: 'investigating', message: 'Tunnels take a minute to start.' };

test('an operator opens an incident, posts updates (newest first), and resolving closes it; the public list shows it', async () => {
  const before = f.s.clock.now().getTime();
  const created = await operator('/internal/status/incidents', INCIDENT);
  assert.equal(created.status, 201, created.text);
  const i = created.json;
  assert.equal(i.title, 'Slow tunnel starts');
  assert.equal(i.impact, 'minor');
  assert.equal(i.status, 'investigating');
  assert.deepEqual(i.components, ['broker', 'edge'], 'known components, in the roll-up order');
  assert.equal(i.automatic, false);
  assert.equal(i.resolved_at, null);
  const createdAt = Date.parse(i.created_at);
  assert.ok(createdAt >= before && createdAt <= f.s.clock.now().getTime(), 'created now');
  assert.deepEqual(i.updates, [{ status: 'investigating', message: 'Tunnels take a minute to start.', at: i.created_at }]);

  f.s.clock.advance(60 * S);
  const identified = await operator(`/internal/status/incidents/${i.id}/updates`, { status: 'identified', message: 'A slow DNS resolver.' });
  assert.equal(identified.status, 201, identified.text);
  assert.equal(identified.json.status, 'identified');
  assert.deepEqual(identified.json.updates.map((u: { status: string }) => u.status), ['identified', 'investigating']);

  f.s.clock.advance(60 * S);
  const resolved = await operator(`/internal/status/incidents/${i.id}/updates`, { status: 'resolved', message: 'Fixed.' });
  assert.equal(resolved.status, 201);
  assert.equal(resolved.json.status, 'resolved');
  assert.equal(resolved.json.resolved_at, resolved.json.updates[0].at, 'closed by the resolving update');
  assert.ok(Date.parse(resolved.json.resolved_at) >= createdAt + 120 * S);
  assertProblem(await operator(`/internal/status/incidents/${i.id}/updates`, { status: 'monitoring', message: 'Again?' }), 409, 'CONFLICT');

  const listed = (await publicList()).find((x) => x.id === i.id);
  assert.deepEqual(listed, resolved.json);
  // A resolved incident created "resolved" is closed at once.
  const past = await operator('/internal/status/incidents', { ...INCIDENT, status: 'resolved', message: 'A short outage this morning, over.' });
  assert.equal(past.json.resolved_at, past.json.created_at);
  const list = await publicList();
  assert.ok(list.findIndex((x) => x.id === past.json.id) < list.findIndex((x) => x.id === i.id), 'newest first');
});

test('operator API: 401 without the token or with another; 400 for each broken rule; 404 for an unknown incident', async () => {
  assertProblem(await operator('/internal/status/incidents', INCIDENT, 'POST', 'not-the-token-0123456789012345'), 401, 'UNAUTHENTICATED');
  assertProblem(await f.s.request('/internal/status/incidents', { method: 'POST', body: INCIDENT }), 401, 'UNAUTHENTICATED');
  for (const broken of [
    { ...INCIDENT, components: ['broker', 'database'] },
    { ...INCIDENT, components: [] },
    { ...INCIDENT, components: 'broker' },
    { ...INCIDENT, impact: 'catastrophic' },
    { ...INCIDENT, status: 'fixed' },
    { ...INCIDENT, title: '   ' },
    { ...INCIDENT, message: '' },
    { ...INCIDENT, title: 'x'.repeat(201) },
    { ...INCIDENT, message: 'a\u0000b' },
    { title: 'No rest' },
  ]) {
    assertProblem(await operator('/internal/status/incidents', broken), 400, 'BAD_REQUEST', JSON.stringify(broken));
  }
  assertProblem(await operator('/internal/status/incidents/00000000-0000-4000-8000-000000000000/updates', { status: 'resolved', message: 'x' }), 404, 'NOT_FOUND');
  assertProblem(await operator('/internal/status/incidents/nope/updates', { status: 'resolved', message: 'x' }), 404, 'NOT_FOUND');
  const i = (await operator('/internal/status/incidents', INCIDENT)).json;
  assertProblem(await operator(`/internal/status/incidents/${i.id}/updates`, { status: 'done', message: 'x' }), 400, 'BAD_REQUEST');
  assertProblem(await operator(`/internal/status/incidents/${i.id}/updates`, { status: 'resolved', message: ' ' }), 400, 'BAD_REQUEST');
});

test('maintenance: planned with a window (active while under way), 400 for bad times, deleted once', async () => {
  const now = f.s.clock.now().getTime();
  const iso = (ms: number) => new Date(ms).toISOString();
  const body = { title: 'Database upgrade', components: ['api'], starts_at: iso(now + 3600 * S), ends_at: iso(now + 7200 * S), message: 'Sign-in may pause for a minute.' };
  const planned = await operator('/internal/status/maintenances', body);
  assert.equal(planned.status, 201, planned.text);
  assert.deepEqual({ ...planned.json, id: undefined }, { id: undefined, title: 'Database upgrade', components: ['api'], starts_at: body.starts_at, ends_at: body.ends_at, message: body.message, active: false });
  const now2 = await operator('/internal/status/maintenances', { ...body, starts_at: iso(now - 60 * S), ends_at: '2999-01-01T00:00:00+02:00' });
  assert.equal(now2.json.active, true);
  assert.equal(now2.json.ends_at, '2998-12-31T22:00:00.000Z');
  for (const broken of [
    { ...body, ends_at: body.starts_at },
    { ...body, ends_at: iso(now) },
    { ...body, starts_at: 'tomorrow' },
    { ...body, starts_at: '2026-12-01T10:00:00' },
    { ...body, starts_at: '2026-02-30T10:00:00Z' },
    { ...body, starts_at: '2026-12-01T24:00:00Z' },
    { ...body, components: ['kitchen'] },
    { ...body, message: '' },
  ]) {
    assertProblem(await operator('/internal/status/maintenances', broken), 400, 'BAD_REQUEST', JSON.stringify(broken));
  }
  assert.equal((await operator(`/internal/status/maintenances/${planned.json.id}`, undefined, 'DELETE')).status, 204);
  assertProblem(await operator(`/internal/status/maintenances/${planned.json.id}`, undefined, 'DELETE'), 404, 'NOT_FOUND');
  assertProblem(await operator(`/internal/status/maintenances/${planned.json.id}`, undefined, 'DELETE', 'x'.repeat(40)), 401, 'UNAUTHENTICATED');
});

test('the public list keeps 90 days', async () => {
  const old = (await operator('/internal/status/incidents', { ...INCIDENT, title: 'Long ago' })).json;
  assert.ok((await publicList()).some((x) => x.id === old.id));
  f.s.clock.advance(91 * DAY_MS);
  assert.ok(!(await publicList()).some((x) => x.id === old.id));
});

test('automatic incidents: 3 consecutive failed refreshes open one (never two); the first refresh that finds the broker up resolves it', async () => {
  const db = f.s.deps.db;
  await db.statusIncident.deleteMany({ where: { automatic: true } });
  await db.statusComponentStreak.deleteMany({});
  await f.reset();
  const refresher = new StatusRefresher(f.s.deps);
  // Windows far ahead, and different each run: a window's lease stays in a shared Redis for 20 s.
  let at = f.s.clock.now().getTime() + Math.floor(1000 + Math.random() * 3000) * DAY_MS;
  const tick = async (mode: 200 | 503) => {
    at += 10 * S;
    moveClockTo(f.s.clock, at);
    await f.broker.set(mode);
    assert.equal(await refresher.tick(), true);
  };
  const open = () => db.statusIncident.findMany({ where: { automatic: true }, include: { updates: true } });

  await tick(503);
  await tick(503);
  await tick(200); // the streak breaks
  await tick(503);
  await tick(503);
  assert.deepEqual(await open(), [], 'two in a row are not three');
  await tick(503);
  let incidents = await open();
  assert.equal(incidents.length, 1);
  assert.equal(incidents[0]!.title, 'Broker unavailable');
  assert.equal(incidents[0]!.impact, 'major');
  assert.deepEqual(incidents[0]!.components, ['broker']);
  assert.equal(incidents[0]!.resolvedAt, null);
  await tick(503);
  await tick(503);
  incidents = await open();
  assert.equal(incidents.length, 1, 'no duplicate while one is open');
  assert.equal(incidents[0]!.updates.length, 1);

  await tick(200);
  const after = await open();
  assert.equal(after.length, 1);
  assert.equal(after[0]!.status, 'resolved');
  // Resolved at the refresh that found it up (its roll-up's checked_at, this tick's window).
  const resolvedAt = after[0]!.resolvedAt?.getTime() ?? 0;
  assert.ok(resolvedAt >= at && resolvedAt < at + 10 * S, `resolved in this tick's window (${resolvedAt - at} ms)`);
  assert.deepEqual(after[0]!.updates.map((u) => u.status).sort(), ['investigating', 'resolved']);
  const listed = (await publicList()).find((x) => x.id === after[0]!.id);
  assert.equal(listed?.automatic, true);
  assert.equal(listed?.updates[0].status, 'resolved');
  await tick(200);
  assert.equal((await open())[0]!.updates.length, 2, 'resolved once');
});

test('two instances racing to open the same automatic incident open one', async () => {
  const db = f.s.deps.db;
  await db.statusIncident.deleteMany({ where: { automatic: true } });
  const { trackAutomaticIncidents } = await import('../../../src/domain/status/incidents.js');
  await db.statusComponentStreak.upsert({ where: { component: 'api' }, create: { component: 'api', failures: 5, updatedAt: new Date() }, update: { failures: 5 } });
  const rollup = {
    status: 'degraded' as const,
    checked_at: f.s.clock.now().toISOString(),
    incidents: [],
    maintenances: [],
    components: [
      { name: 'broker' as const, ok: true, detail: 'ok', latency_ms: 1 },
      { name: 'api' as const, ok: false, detail: 'HTTP 503', latency_ms: 1 },
      { name: 'edge' as const, ok: true, detail: 'ok', latency_ms: null },
    ],
  };
  const deps = f.s.deps;
  const results = await Promise.all([trackAutomaticIncidents(deps, rollup), trackAutomaticIncidents(deps, rollup), trackAutomaticIncidents(deps, rollup)]);
  assert.equal(results.flatMap((r) => r.opened).length, 1);
  assert.equal((await db.statusIncident.findMany({ where: { automatic: true, automaticComponent: 'api', resolvedAt: null } })).length, 1);
});

test('/status carries open incidents and maintenance under way or within 7 days, in JSON and on the page', async () => {
  const db = f.s.deps.db;
  await db.statusIncident.deleteMany({});
  await db.statusMaintenance.deleteMany({});
  await f.reset();
  const now = f.s.clock.now().getTime();
  const iso = (ms: number) => new Date(ms).toISOString();
  const open = (await operator('/internal/status/incidents', { ...INCIDENT, title: 'Edge <errors>', impact: 'major', components: ['edge'] })).json;
  await operator('/internal/status/incidents', { ...INCIDENT, title: 'Over', status: 'resolved' });
  const window = { components: ['api'], message: 'Brief pauses.' };
  const underWay = (await operator('/internal/status/maintenances', { ...window, title: 'Now', starts_at: iso(now - 60 * S), ends_at: iso(now + 3600 * S) })).json;
  const soon = (await operator('/internal/status/maintenances', { ...window, title: 'Soon', starts_at: iso(now + 6 * DAY_MS), ends_at: iso(now + 6 * DAY_MS + 3600 * S) })).json;
  await operator('/internal/status/maintenances', { ...window, title: 'Later', starts_at: iso(now + 8 * DAY_MS), ends_at: iso(now + 8 * DAY_MS + 3600 * S) });
  await operator('/internal/status/maintenances', { ...window, title: 'Over', starts_at: iso(now - 7200 * S), ends_at: iso(now - 3600 * S) });

  await f.reset();
  const r = await f.status();
  assert.deepEqual(r.json.incidents.map((i: { id: string }) => i.id), [open.id]);
  assert.deepEqual(r.json.incidents[0], open);
  assert.deepEqual(r.json.maintenances.map((m: { id: string; active: boolean }) => [m.id, m.active]), [[underWay.id, true], [soon.id, false]]);

  const page = await f.status({ headers: { accept: 'text/html' } });
  assert.match(page.text, /<h2 id="incidents">Incidents<\/h2>/);
  assert.match(page.text, /<h3>Edge &lt;errors&gt;<\/h3>/, 'escaped');
  assert.match(page.text, /Major impact/);
  assert.match(page.text, /<h2 id="maintenance">Planned maintenance<\/h2>/);
  assert.ok(page.text.indexOf('data-maintenance') < page.text.indexOf('<table>'), 'above the components');
  assert.doesNotMatch(page.text, /<script/);

  // Read by the refresh, not per request: a new incident shows with the next roll-up.
  const next = (await operator('/internal/status/incidents', { ...INCIDENT, title: 'Another' })).json;
  assert.ok(!(await f.status()).json.incidents.some((i: { id: string }) => i.id === next.id));
  await f.reset();
  assert.ok((await f.status()).json.incidents.some((i: { id: string }) => i.id === next.id));
});

test("/api/v2/summary.json: Statuspage's summary from the roll-up: indicator, component states, unresolved incidents, maintenance", async () => {
  const db = f.s.deps.db;
  await db.statusIncident.deleteMany({});
  await db.statusMaintenance.deleteMany({});
  await f.reset();
  let r = await f.zone('/api/v2/summary.json');
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /^application\/json/);
  assert.equal(r.headers['access-control-allow-origin'], '*');
  assert.deepEqual(r.json.status, { indicator: 'none', description: 'All Systems Operational' });
  assert.equal(r.json.page.name, f.s.deps.config.serviceName);
  assert.equal(r.json.page.url, `http://${f.s.deps.config.zone}${new URL(f.s.deps.config.baseUrl).port ? `:${new URL(f.s.deps.config.baseUrl).port}` : ''}/status`);
  assert.deepEqual(r.json.components.map((c: { id: string; status: string }) => [c.id, c.status]), [['broker', 'operational'], ['api', 'operational'], ['edge', 'operational']]);
  assert.deepEqual(r.json.incidents, []);
  assert.deepEqual(r.json.scheduled_maintenances, []);

  const now = f.s.clock.now().getTime();
  const incident = (await operator('/internal/status/incidents', { ...INCIDENT, impact: 'major', components: ['edge'] })).json;
  const m = (await operator('/internal/status/maintenances', { title: 'Upgrade', components: ['api'], message: 'Pauses.', starts_at: new Date(now - 1000).toISOString(), ends_at: new Date(now + 3600_000).toISOString() })).json;
  await f.reset();
  await f.broker.set(503);
  r = await f.zone('/api/v2/summary.json');
  assert.deepEqual(r.json.components.map((c: { id: string; status: string }) => [c.id, c.status]), [['broker', 'major_outage'], ['api', 'under_maintenance'], ['edge', 'partial_outage']]);
  assert.equal(r.json.status.indicator, 'major');
  assert.equal(r.json.incidents.length, 1);
  const i = r.json.incidents[0];
  assert.equal(i.id, incident.id);
  assert.equal(i.name, INCIDENT.title);
  assert.equal(i.status, 'investigating');
  assert.equal(i.impact, 'major');
  assert.deepEqual(i.incident_updates.map((u: { body: string }) => u.body), [INCIDENT.message]);
  assert.deepEqual(i.components.map((c: { id: string }) => c.id), ['edge']);
  assert.equal(r.json.scheduled_maintenances[0].id, m.id);
  assert.equal(r.json.scheduled_maintenances[0].status, 'in_progress');
  assert.equal(r.json.scheduled_maintenances[0].scheduled_until, m.ends_at);
  // A critical incident makes the indicator critical.
  await operator('/internal/status/incidents', { ...INCIDENT, impact: 'critical', components: ['api'] });
  await f.reset();
  r = await f.zone('/api/v2/summary.json');
  assert.deepEqual(r.json.status, { indicator: 'critical', description: 'Major System Outage' });
});

test('/status/feed.atom: a well-formed Atom feed of incident updates and maintenance, newest first, at most 50', async () => {
  const { XMLParser, XMLValidator } = await import('fast-xml-parser');
  const db = f.s.deps.db;
  await db.statusIncident.deleteMany({});
  await db.statusMaintenance.deleteMany({});
  const i = (await operator('/internal/status/incidents', { ...INCIDENT, title: 'Edge & "friends" <down>', message: 'Bad\u0001 bytes & <tags>' })).json;
  f.s.clock.advance(1000);
  await operator(`/internal/status/incidents/${i.id}/updates`, { status: 'resolved', message: 'Fixed.' });
  f.s.clock.advance(1000);
  const now = f.s.clock.now().getTime();
  const m = (await operator('/internal/status/maintenances', { title: 'Upgrade', components: ['api'], message: 'Pauses.', starts_at: new Date(now + 3600_000).toISOString(), ends_at: new Date(now + 7200_000).toISOString() })).json;
  f.s.clock.advance(6000);
  const r = await f.zone('/status/feed.atom');
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /^application\/atom\+xml/);
  assert.equal(XMLValidator.validate(r.text), true, r.text);
  const feed = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'entry' || name === 'link' }).parse(r.text).feed;
  assert.equal(feed['@_xmlns'], 'http://www.w3.org/2005/Atom');
  assert.equal(feed.title, `${f.s.deps.config.serviceName} status`);
  assert.ok(feed.id && feed.updated && feed.author.name, 'id, updated and author, as RFC 4287 requires');
  const entries = feed.entry as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed XML
  assert.deepEqual(entries.map((e) => e.title), ['Planned maintenance: Upgrade', 'Edge & "friends" <down>: Resolved', 'Edge & "friends" <down>: Investigating']);
  assert.equal(entries[0]!.id, `urn:uuid:${m.id}`);
  assert.match(String(entries[2]!.content['#text']), /^Bad bytes & <tags>/, 'escaped, and no control character');
  for (const e of entries) assert.ok(e.updated && e.id && e.link, 'each entry has id, updated and a link');
  // At most 50 entries.
  for (let n = 0; n < 50; n++) await operator('/internal/status/incidents', { ...INCIDENT, title: `Burst ${n}` });
  f.s.clock.advance(6000);
  const many = new XMLParser({ isArray: (name) => name === 'entry' }).parse((await f.zone('/status/feed.atom')).text).feed.entry as unknown[];
  assert.equal(many.length, 50);
});
