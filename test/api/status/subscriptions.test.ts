// Status subscriptions (API.md section 17): double opt-in (the link opens a page whose button
// confirms: a GET, as mail scanners send, changes nothing), notices for incidents, updates and
// maintenance with RFC 8058 one-click unsubscribe, the same answer whoever is subscribed, limits
// per network and per address, and the zone host's exceptions to the JSON-only and Origin rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { zoneOrigin } from '../../../src/domain/status/subscriptions.js';
import { fromIp, randomIp } from '../../support/accounts.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail } from '../../support/server.js';
import { INTERNAL_TOKEN } from '../../support/tunnels.js';
import { DAY_MS, useStatusFixture } from '../../support/status.js';
import type { ReceivedMail } from '../../support/smtp.js';

const f = useStatusFixture({ env: { INTERNAL_API_TOKEN: INTERNAL_TOKEN, TRUST_PROXY: 'true' } });
const INCIDENT = { title: 'Slow starts', impact: 'minor', components: ['edge'], status: 'investigating', message: 'Looking into it.' };

const origin = () => zoneOrigin(f.s.deps.config);
const subscribeJson = (email: unknown, headers: Record<string, string> = fromIp(randomIp())) =>
  f.zone('/status/subscribe', { method: 'POST', body: { email }, headers });
const operator = (path: string, body: unknown) => f.s.request(path, { method: 'POST', bearer: INTERNAL_TOKEN, body });

/** A header of a received mail (unfolded). */
function header(mail: ReceivedMail, name: string): string | undefined {
  const head = mail.raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  return new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim();
}

/** What the confirmation page's button sends: its form's token, from the zone origin (or `origin`). */
function pressConfirm(token: string, origin: string | null = zoneOrigin(f.s.deps.config)) {
  return f.zone('/status/subscribe/confirm', {
    method: 'POST',
    body: `token=${encodeURIComponent(token)}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(origin === null ? {} : { origin }) },
  });
}

/** Opens the link as a browser does, then presses the page's button. */
async function confirmByPage(linkToken: string) {
  const shown = await f.zone(`/status/subscribe/confirm?token=${linkToken}`);
  assert.equal(shown.status, 200, shown.text);
  const formToken = /<input type="hidden" name="token" value="([a-z2-7]{32})">/.exec(shown.text)?.[1];
  assert.ok(formToken, shown.text);
  return pressConfirm(formToken);
}

const isConfirmed = async (email: string) =>
  (await f.s.deps.db.statusSubscriber.findFirstOrThrow({ where: { emailNormalized: email.toLowerCase() } })).confirmedAt !== null;

async function confirmedSubscriber(): Promise<string> {
  const email = uniqueEmail('status');
  assert.equal((await subscribeJson(email)).status, 202);
  const mail = await f.s.smtp.waitFor(email, 'status-subscribe-confirm');
  const confirmed = await confirmByPage(mail.token!);
  assert.equal(confirmed.status, 200, confirmed.text);
  return email;
}

test('double opt-in: 202, a link whose page confirms by its button only (a GET or HEAD confirms nothing, a cross-site POST neither); notices once confirmed; once', async () => {
  const email = uniqueEmail('status');
  const r = await subscribeJson(email);
  assert.equal(r.status, 202);
  assert.equal(r.text, '');
  const mail = await f.s.smtp.waitFor(email, 'status-subscribe-confirm');
  assert.ok(mail.links.some((l) => l.startsWith(`${origin()}/status/subscribe/confirm?token=`)), mail.links.join(' '));
  // Not confirmed yet: an incident sends it nothing.
  await operator('/internal/status/incidents', INCIDENT);
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(f.s.smtp.to(email, 'status-incident').length, 0);

  // Opening the link (a mail scanner's GET, a link checker's HEAD) shows a button and confirms nothing.
  const page = await f.zone(`/status/subscribe/confirm?token=${mail.token}`);
  assert.equal(page.status, 200);
  assert.match(page.text, /Confirm your subscription/);
  assert.match(
    page.text,
    new RegExp(`<form method="post" action="/status/subscribe/confirm"><input type="hidden" name="token" value="${mail.token}"><button type="submit">Confirm the subscription</button></form>`),
  );
  assert.doesNotMatch(page.text, /<script|<link|src=/, 'no script, no external asset');
  assert.equal(page.headers['cache-control'], 'no-store');
  // The page's origin, never its path (and so never the token), is its referrer; with no-referrer
  // the browser would send the button's POST with `Origin: null`.
  assert.equal(page.headers['referrer-policy'], 'strict-origin');
  assert.match(String(page.headers['content-security-policy']), /^default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'$/);
  assert.equal(page.headers['x-frame-options'], 'DENY');
  assert.equal((await f.zone(`/status/subscribe/confirm?token=${mail.token}`)).status, 200, 'opened again: still the button');
  assert.equal((await f.zone(`/status/subscribe/confirm?token=${mail.token}`, { method: 'HEAD' })).status, 200);
  assert.equal(await isConfirmed(email), false, 'a GET confirms nothing');
  await operator('/internal/status/incidents', INCIDENT);
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(f.s.smtp.to(email, 'status-incident').length, 0);

  // The button's POST: refused from another site (or an opaque origin), taken from the zone origin.
  assertProblem(await pressConfirm(mail.token!, 'https://evil.example'), 403, 'FORBIDDEN');
  assertProblem(await pressConfirm(mail.token!, 'null'), 403, 'FORBIDDEN');
  assert.equal(await isConfirmed(email), false, 'a cross-site POST confirms nothing');
  const confirmed = await pressConfirm(mail.token!);
  assert.equal(confirmed.status, 200, confirmed.text);
  assert.match(confirmed.text, /You are subscribed/);
  assert.equal(confirmed.headers['referrer-policy'], 'no-referrer');
  assert.equal(await isConfirmed(email), true);
  const again = await pressConfirm(mail.token!);
  assert.equal(again.status, 400);
  assert.match(again.text, /This link does not work/);
  assert.equal((await pressConfirm('a'.repeat(32))).status, 400, 'an unknown token');
  assert.equal((await f.zone('/status/subscribe/confirm?token=nope')).status, 400, 'not a token: no button');
  assert.equal((await f.zone('/status/subscribe/confirm', { method: 'PUT' })).status, 405);
  // The token never rests readable in the outbox or the subscriber row.
  const row = await f.s.deps.db.statusSubscriber.findFirstOrThrow({ where: { emailNormalized: email.toLowerCase() } });
  assert.ok(row.confirmedAt);
  assert.ok(!JSON.stringify(row).includes(mail.token!));
});

test('incidents, updates and maintenance reach confirmed subscribers with List-Unsubscribe; one click unsubscribes from any origin', async () => {
  const email = await confirmedSubscriber();
  const created = await operator('/internal/status/incidents', { ...INCIDENT, title: 'Edge errors', impact: 'major' });
  assert.equal(created.status, 201);
  const first = await f.s.smtp.waitFor(email, 'status-incident');
  assert.match(first.subject, /Edge errors \(major impact\)/);
  const unsubscribeUrl = `${origin()}/status/unsubscribe?token=`;
  assert.match(header(first, 'List-Unsubscribe') ?? '', new RegExp(`^<${unsubscribeUrl.replace(/[.?]/g, '\\$&')}[a-z2-7]{32}>$`));
  assert.equal(header(first, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
  await operator(`/internal/status/incidents/${created.json.id}/updates`, { status: 'resolved', message: 'Fixed.' });
  const second = await f.s.smtp.waitFor(email, 'status-incident', 2);
  assert.match(second.subject, /Edge errors: Resolved/);
  const now = f.s.clock.now().getTime();
  await operator('/internal/status/maintenances', { title: 'Upgrade', components: ['api'], message: 'Pauses.', starts_at: new Date(now + DAY_MS).toISOString(), ends_at: new Date(now + DAY_MS + 3600_000).toISOString() });
  const third = await f.s.smtp.waitFor(email, 'status-incident', 3);
  assert.match(third.subject, /Planned maintenance: Upgrade/);

  // The link opened in a browser shows a button; a GET changes nothing.
  const link = /<([^>]+)>/.exec(header(third, 'List-Unsubscribe')!)![1]!;
  const path = link.slice(origin().length);
  const shown = await f.zone(path);
  assert.equal(shown.status, 200);
  assert.match(shown.text, /<form method="post" action="\/status\/unsubscribe\?token=[a-z2-7]{32}"><button type="submit">Unsubscribe<\/button><\/form>/);
  assert.ok(await f.s.deps.db.statusSubscriber.findFirst({ where: { emailNormalized: email.toLowerCase() } }), 'still subscribed after the GET');
  // The mail client's one-click POST: form-encoded, from another origin (or none), no sign-in.
  const clicked = await f.zone(path, {
    method: 'POST',
    body: 'List-Unsubscribe=One-Click',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://mail.example.net' },
  });
  assert.equal(clicked.status, 200, clicked.text);
  assert.match(clicked.text, /You are unsubscribed/);
  await operator('/internal/status/incidents', INCIDENT);
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(f.s.smtp.to(email, 'status-incident').length, 3, 'nothing after unsubscribing');
  const twice = await f.zone(path, { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal(twice.status, 200);
  assert.match(twice.text, /Nothing to unsubscribe/);
});

test('the same answer whoever is subscribed; a confirmed address gets no new link; links expire after 24 hours', async () => {
  const email = await confirmedSubscriber();
  const before = f.s.smtp.to(email).length;
  assert.equal((await subscribeJson(email.toUpperCase())).status, 202);
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(f.s.smtp.to(email).length, before, 'nothing sent to a confirmed address');

  const late = uniqueEmail('status');
  await subscribeJson(late);
  const mail = await f.s.smtp.waitFor(late, 'status-subscribe-confirm');
  f.s.clock.advance(DAY_MS + 1000);
  assert.equal((await confirmByPage(mail.token!)).status, 400, 'expired');
  // The hourly purge removes what was never confirmed, once its link has expired.
  const { purgeExpired } = await import('../../../src/domain/retention/retention.js');
  const purged = await purgeExpired(f.s.deps);
  assert.ok(purged === null || purged.statusSubscribers >= 1);
  if (purged) assert.equal(await f.s.deps.db.statusSubscriber.count({ where: { emailNormalized: late.toLowerCase() } }), 0);
  assert.equal(await f.s.deps.db.statusSubscriber.count({ where: { emailNormalized: email.toLowerCase() } }), 1, 'a confirmed one stays');
  assertProblem(await subscribeJson('not an address'), 400, 'BAD_REQUEST');
  assertProblem(await subscribeJson(42), 400, 'BAD_REQUEST');

  // A client without the page (no Origin, the link's own query) confirms with a POST too.
  const direct = uniqueEmail('status');
  await subscribeJson(direct);
  const link = (await f.s.smtp.waitFor(direct, 'status-subscribe-confirm')).links.find((l) => l.includes('/status/subscribe/confirm?token='))!;
  const posted = await f.zone(link.slice(origin().length), { method: 'POST' });
  assert.equal(posted.status, 200, posted.text);
  assert.equal(await isConfirmed(direct), true);
});

test('limits: 10 a network an hour (429 with Retry-After, counted first); past 3 links a day an address gets no more, silently', async () => {
  const net = { 'x-forwarded-for': `10.77.${Math.floor(Math.random() * 250)}.9` };
  for (let i = 0; i < 10; i++) assert.equal((await subscribeJson(uniqueEmail('net'), net)).status, 202);
  const past = await subscribeJson(uniqueEmail('net'), net);
  assertProblem(past, 429, 'RATE_LIMITED');
  assert.ok(Number(past.headers['retry-after']) > 0);
  assertProblem(await subscribeJson('bad', net), 429, 'RATE_LIMITED', 'counted before the address is even read');

  const email = uniqueEmail('addr');
  for (let i = 0; i < 4; i++) assert.equal((await subscribeJson(email)).status, 202);
  await f.s.smtp.waitFor(email, 'status-subscribe-confirm', 3);
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(f.s.smtp.to(email, 'status-subscribe-confirm').length, 3);
});

test("Origin and body rules: JSON from a foreign origin 403; the page's form from the zone origin gets a page; anything else 403 or 415", async () => {
  assertProblem(await subscribeJson(uniqueEmail('o'), { ...fromIp(randomIp()), origin: 'https://evil.example' }), 403, 'FORBIDDEN');
  const email = uniqueEmail('form');
  const form = (o: string | undefined) =>
    f.zone('/status/subscribe', {
      method: 'POST',
      body: `email=${encodeURIComponent(email)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...fromIp(randomIp()), ...(o ? { origin: o } : {}) },
    });
  const ok = await form(origin());
  assert.equal(ok.status, 200);
  assert.match(String(ok.headers['content-type']), /^text\/html/);
  assert.match(ok.text, /Check your inbox/);
  await f.s.smtp.waitFor(email, 'status-subscribe-confirm');
  assertProblem(await form('https://evil.example'), 403, 'FORBIDDEN');
  assertProblem(await form(undefined), 403, 'FORBIDDEN');
  assertProblem(await f.zone('/status/subscribe', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } }), 415, 'BAD_REQUEST');
  assertProblem(await f.zone('/status/subscribe', { method: 'POST', body: '{', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
  assertProblem(await f.zone('/status/subscribe', { method: 'POST', body: { email: 'x'.repeat(9000) } }), 413, 'BAD_REQUEST');
  assert.equal((await f.zone('/status/subscribe')).status, 405);
  // The status page carries the form, still without scripts, and its policy lets it post here.
  const page = await f.status({ headers: { accept: 'text/html' } });
  assert.match(page.text, /<form method="post" action="\/status\/subscribe">/);
  assert.match(String(page.headers['content-security-policy']), /form-action 'self'/);
  assert.doesNotMatch(page.text, /<script/);
});

test('an automatic incident reaches confirmed subscribers too', async () => {
  const email = await confirmedSubscriber();
  const { trackAutomaticIncidents } = await import('../../../src/domain/status/incidents.js');
  const db = f.s.deps.db;
  await db.statusIncident.deleteMany({ where: { automatic: true } });
  await db.statusComponentStreak.upsert({ where: { component: 'api' }, create: { component: 'api', failures: 5, updatedAt: new Date() }, update: { failures: 5 } });
  const down = {
    status: 'degraded' as const,
    checked_at: f.s.clock.now().toISOString(),
    components: [
      { name: 'broker' as const, ok: true, detail: 'ok', latency_ms: 1 },
      { name: 'api' as const, ok: false, detail: 'HTTP 503', latency_ms: 1 },
      { name: 'edge' as const, ok: true, detail: 'ok', latency_ms: null },
    ],
    incidents: [],
    maintenances: [],
  };
  await trackAutomaticIncidents(f.s.deps, down);
  const mail = await f.s.smtp.waitFor(email, 'status-incident');
  assert.match(mail.subject, /API unavailable/);
  f.s.clock.advance(10_000);
  const up = { ...down, checked_at: f.s.clock.now().toISOString(), components: down.components.map((c) => ({ ...c, ok: true })) };
  await trackAutomaticIncidents(f.s.deps, up);
  assert.match((await f.s.smtp.waitFor(email, 'status-incident', 2)).subject, /API unavailable: Resolved/);
});

test('a notice waits in the outbox sealed, headers included, while SMTP is down, and goes out once it is back', async () => {
  const email = await confirmedSubscriber();
  f.s.smtp.failing = true;
  try {
    await operator('/internal/status/incidents', { ...INCIDENT, title: 'While mail is down' });
    const row = await f.s.deps.db.outboxEmail.findFirstOrThrow({ where: { toAddress: email, kind: 'status-incident' } });
    assert.ok(row.extraHeaders, 'the List-Unsubscribe headers are stored');
    for (const stored of [row.textBody, row.htmlBody, row.extraHeaders!]) {
      assert.doesNotMatch(stored, /unsubscribe\?token=/, 'sealed, so the unsubscribe link never rests readable');
    }
  } finally {
    f.s.smtp.failing = false;
  }
  const mail = await f.s.smtp.waitFor(email, 'status-incident', 1, 20_000);
  assert.match(mail.subject, /While mail is down/);
  assert.equal(header(mail, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
});
