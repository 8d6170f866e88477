// Retention (issue 39): what is past its time is deleted in bounded batches, through an index,
// by one instance at a time (a lease); what is still live stays. Every sweep's batch statement
// is planned on an index (checked with sequential scans priced out, so a missing index fails).
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { signedIn, signup } from '../../support/accounts.js';
import { useServer } from '../../support/server.js';
import { LEASE_NAME, SWEEPS, purgeExpired } from '../../../src/domain/retention/retention.js';
import { batchStatement, takeLease } from '../../../src/domain/retention/store.js';

const s = useServer();
const MINUTE = 60_000;
const tag = () => randomBytes(6).toString('hex');

test('expired sessions, email tokens, challenges and pending links go; live ones stay; a used email token stays until its link expires', async () => {
  const a = await signup(s);
  const live = await signedIn(s);
  const now = new Date();
  const past = new Date(now.getTime() - MINUTE);
  const future = new Date(now.getTime() + MINUTE);
  const session = (expiresAt: Date) => ({ id: randomUUID(), accountId: a.id, tokenHash: tag(), userAgent: 'x', ip: '10.0.0.x', expiresAt });
  await s.deps.db.session.createMany({ data: [session(past), session(past), session(future)] });
  const token = (expiresAt: Date, usedAt: Date | null = null) => ({ accountId: a.id, kind: 'reset-password', tokenHash: tag(), expiresAt, usedAt });
  await s.deps.db.emailToken.createMany({ data: [token(past), token(past, past), token(future, past), token(future)] });
  const link = (expiresAt: Date) => ({ accountId: a.id, tokenHash: tag(), provider: 'github', providerUserId: tag(), providerEmail: 'x@example.com', expiresAt });
  await s.deps.db.pendingLink.createMany({ data: [link(past), link(future)] });

  const purged = await purgeExpired({ sql: s.deps.sql, clock: () => now }, { batch: 1 });
  assert.ok(purged, 'the lease was free');
  assert.equal(purged.more, false);
  assert.ok(purged.sessions >= 2 && purged.emailTokens >= 2 && purged.pendingLinks >= 1, JSON.stringify(purged));
  assert.deepEqual((await s.deps.db.session.findMany({ where: { accountId: a.id }, select: { expiresAt: true } })).map((r) => r.expiresAt.getTime()), [future.getTime()]);
  const tokens = await s.deps.db.emailToken.findMany({ where: { accountId: a.id, kind: 'reset-password' }, select: { expiresAt: true, usedAt: true } });
  assert.equal(tokens.length, 2, 'the unexpired ones, used or not');
  assert.ok(tokens.every((t) => t.expiresAt.getTime() === future.getTime()));
  assert.equal(await s.deps.db.pendingLink.count({ where: { accountId: a.id } }), 1);
  // The signed-in account's own session (made now, 30 days ahead) still works.
  assert.equal((await s.request('/api/account', { bearer: live.token })).status, 200);
});

test("an organization's audit events go after a year, its invitations once expired; younger ones stay", async () => {
  const owner = await signedIn(s, { verified: true });
  const slug = `ret-${tag()}`;
  const org = await s.request('/api/orgs', { method: 'POST', bearer: owner.token, body: { slug, name: 'Retention' } });
  assert.equal(org.status, 201, org.text);
  const orgId = org.json.id as string;
  const now = new Date();
  const yearAgo = new Date(now.getTime() - 365 * 24 * 3600_000 - MINUTE);
  const audit = (at: Date) => ({ orgId, type: 'tunnel_created', at, ip: '10.0.0.x' });
  await s.deps.db.orgAuditEvent.createMany({ data: [audit(yearAgo), audit(yearAgo), audit(new Date(now.getTime() - 364 * 24 * 3600_000))] });
  const invitation = (expiresAt: Date) => ({ orgId, email: 'x@example.com', emailNormalized: 'x@example.com', role: 'member', tokenHash: tag(), expiresAt });
  await s.deps.db.orgInvitation.createMany({ data: [invitation(new Date(now.getTime() - MINUTE)), invitation(new Date(now.getTime() + MINUTE))] });
  const purged = await purgeExpired({ sql: s.deps.sql, clock: () => now }, { batch: 1 });
  assert.ok(purged && purged.auditEvents >= 2 && purged.invitations >= 1, JSON.stringify(purged));
  // org_created (now) and the 364-day-old one stay.
  assert.equal(await s.deps.db.orgAuditEvent.count({ where: { orgId } }), 2);
  assert.equal(await s.deps.db.orgInvitation.count({ where: { orgId } }), 1);
});

test('a run stops at its time budget and says more is left; the next run finishes', async () => {
  const a = await signup(s);
  const past = new Date(Date.now() - MINUTE);
  await s.deps.db.session.createMany({
    data: Array.from({ length: 5 }, () => ({ id: randomUUID(), accountId: a.id, tokenHash: tag(), userAgent: 'x', ip: '10.0.0.x', expiresAt: past })),
  });
  const first = await purgeExpired({ sql: s.deps.sql, clock: () => new Date() }, { batch: 2, budgetMs: 0 });
  assert.ok(first);
  assert.equal(first.more, true);
  const rest = await purgeExpired({ sql: s.deps.sql, clock: () => new Date() }, { batch: 2 });
  assert.ok(rest && rest.more === false);
  assert.equal(await s.deps.db.session.count({ where: { accountId: a.id } }), 0);
});

test('one holder at a time: a held lease makes a run do nothing; an expired one is taken over; a finished run frees it', async () => {
  const a = await signup(s);
  await s.deps.db.session.create({ data: { id: randomUUID(), accountId: a.id, tokenHash: tag(), userAgent: 'x', ip: '10.0.0.x', expiresAt: new Date(Date.now() - MINUTE) } });
  assert.equal(await takeLease(s.deps.sql, LEASE_NAME, 'instance A', 60_000), true);
  assert.equal(await takeLease(s.deps.sql, LEASE_NAME, 'instance B', 60_000), false, 'held by A');
  assert.equal(await takeLease(s.deps.sql, LEASE_NAME, 'instance A', 60_000), true, 'A renews');
  assert.equal(await purgeExpired({ sql: s.deps.sql, clock: () => new Date() }), null);
  assert.equal(await s.deps.db.session.count({ where: { accountId: a.id } }), 1, 'nothing deleted while A holds it');
  // A holder that died: its lease runs out (on the database's clock) and the next run takes it.
  await s.deps.db.lease.update({ where: { name: LEASE_NAME }, data: { expiresAt: new Date(Date.now() - 1000) } });
  const purged = await purgeExpired({ sql: s.deps.sql, clock: () => new Date() });
  assert.ok(purged && purged.sessions >= 1);
  assert.equal(await s.deps.db.session.count({ where: { accountId: a.id } }), 0);
  assert.equal(await s.deps.db.lease.count({ where: { name: LEASE_NAME } }), 0, 'released after the run');
});

test('every sweep, the outbox expiry sweep and the outbox claim are planned on an index', async () => {
  const plans: string[] = [];
  const explain = async (text: string, values: unknown[]) =>
    s.deps.db.$transaction(async (tx) => {
      // Priced out, a sequential scan shows only where no index can serve the statement.
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      const rows = await tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${text}`, ...values);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  for (const sweep of SWEEPS) {
    const plan = await explain(batchStatement(sweep), [new Date(), 1000]);
    plans.push(plan);
    assert.doesNotMatch(plan, /Seq Scan/, `${sweep.name}:\n${plan}`);
    assert.match(plan, new RegExp(`Index (Only )?Scan .*on ${sweep.table}|Bitmap Index Scan`), `${sweep.name}:\n${plan}`);
  }
  const { OUTBOX_EXPIRED_SWEEP, OUTBOX_CLAIM } = await import('../../../src/infra/mail/worker.js');
  for (const [name, text, values] of [
    ['outbox expiry sweep', OUTBOX_EXPIRED_SWEEP, [new Date()]],
    ['outbox claim', OUTBOX_CLAIM, [20]],
  ] as const) {
    const plan = await explain(text, [...values]);
    assert.doesNotMatch(plan, /Seq Scan on outbox_emails/, `${name}:\n${plan}`);
  }
});
