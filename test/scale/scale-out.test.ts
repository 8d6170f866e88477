// Scaled out on the real engines: three instances behind HAProxy (round robin), a 3-master Redis
// Cluster (each master with a replica), PgBouncer in transaction pooling mode in front of a
// fresh PostgreSQL database (migrations through DATABASE_DIRECT_URL). Every shared-state
// guarantee is exercised through the load balancer, then a cluster master is crashed.
//
// Runs in the real-backend pass (it takes the PostgreSQL server of DATABASE_URL and starts its
// own Redis Cluster, PgBouncer and HAProxy); the embedded pass reports it skipped rather than
// running this heavy file twice.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { timeOrderedTokenKey } from '../../src/infra/crypto/tokens.js';
import { keySlot } from '../../src/infra/cache/keys.js';
import { login, signedIn, signup, type Session } from '../support/accounts.js';
import { needs } from '../support/backends.js';
import { FakeUpstream } from '../support/fake-upstream.js';
import { useFixture } from '../support/fixture.js';
import { assertProblem } from '../support/problem.js';
import { needsPrograms } from '../support/programs.js';
import { SCALE_PROGRAMS, startScaledOut, type ScaledOut } from '../support/scale.js';
import type { Server } from '../support/server.js';
import { INTERNAL_TOKEN, card, customDomain, discoverableTunnel, patchTunnel } from '../support/tunnels.js';

const ZONE = 'scale.localhost';
const programs = needsPrograms(SCALE_PROGRAMS, 'three instances behind HAProxy on a Redis Cluster and PgBouncer');
const real = needs(['DATABASE_URL'], 'runs once, in the real-backend pass, on a fresh database of that PostgreSQL');
const opts = programs.skip ? programs : real;

const upstreams = useFixture(
  async () => ({ broker: await FakeUpstream.start(), api: await FakeUpstream.start() }),
  async (u) => {
    await u.broker.close();
    await u.api.close();
  },
  opts,
);
const world = useFixture(
  () =>
    startScaledOut({
      instances: 3,
      databaseUrl: process.env.DATABASE_URL!,
      env: { ZONE, INTERNAL_API_TOKEN: INTERNAL_TOKEN, BROKER_HEALTH_URL: upstreams().broker.url, API_HEALTH_URL: upstreams().api.url },
    }),
  (w) => w.close(),
  opts,
);

const lb = (): Server => world().lb;
const each = (): ScaledOut['instances'] => world().instances;

async function sessionId(s: Server, caller: Session, victimToken: string): Promise<string> {
  const list = (await s.request('/api/sessions', { bearer: caller.token })).json.sessions as { id: string; current: boolean }[];
  const mine = (await s.request('/api/sessions', { bearer: victimToken })).json.sessions.find((x: { current: boolean }) => x.current).id;
  assert.ok(list.some((x) => x.id === mine));
  return mine;
}

/** Requests an instance has answered (its own duration histogram), health checks aside. */
async function served(s: Server): Promise<number> {
  const text = await s.deps.metrics.registry.metrics();
  let n = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('http_request_duration_seconds_count') && !line.includes('healthz')) n += Number(line.split(' ').pop());
  }
  return n;
}

test('the requests really spread over the three instances', opts, async () => {
  const account = await signup(lb());
  const session = await login(lb(), account);
  const before = await Promise.all(each().map(served));
  for (let i = 0; i < 6; i++) assert.equal((await lb().request('/api/account', { bearer: session.token })).status, 200);
  const after = await Promise.all(each().map(served));
  assert.deepEqual(after.map((n, i) => n - before[i]!), [2, 2, 2], 'round robin: two each');
});

test('logout-all through the load balancer: the token then fails on every instance', opts, async () => {
  const account = await signup(lb());
  const victim = await login(lb(), account);
  const other = await login(lb(), account);
  // Cached everywhere (Redis Cluster and each instance's path).
  for (const s of each()) assert.equal((await s.request('/api/account', { bearer: victim.token })).status, 200);
  assert.equal((await lb().request('/auth/logout-all', { method: 'POST', bearer: other.token })).status, 204);
  for (const s of each()) assertProblem(await s.request('/api/account', { bearer: victim.token }), 401, 'UNAUTHENTICATED');
  for (let i = 0; i < 3; i++) assertProblem(await lb().request('/api/account', { bearer: victim.token }), 401, 'UNAUTHENTICATED');
});

test('login limits are shared: the 11th attempt is refused whichever instance takes it', opts, async () => {
  const account = await signup(lb());
  for (let i = 0; i < 10; i++) {
    const r = await lb().request('/auth/login', { method: 'POST', body: { email: account.email, password: 'wrong password here' } });
    assert.equal(r.status, 401, `attempt ${i + 1}: ${r.text}`);
  }
  // Even with the right password: each instance saw at most 4 attempts, the shared count is 10.
  for (const s of [lb(), ...each()]) {
    assertProblem(await s.request('/auth/login', { method: 'POST', body: { email: account.email, password: account.password } }), 429, 'RATE_LIMITED');
  }
});

test('the resend-verification cap is shared by the three instances', opts, async () => {
  const account = await signup(lb());
  const session = await login(lb(), account);
  for (let i = 0; i < 5; i++) {
    assert.equal((await lb().request('/auth/resend-verification', { method: 'POST', bearer: session.token })).status, 204);
  }
  for (const s of each()) {
    assertProblem(await s.request('/auth/resend-verification', { method: 'POST', bearer: session.token }), 429, 'RATE_LIMITED');
  }
});

test('a card change made through the load balancer shows on every instance at once', opts, async () => {
  const owner = await signedIn(lb());
  const domain = customDomain('scale');
  const t = await discoverableTunnel(lb(), owner, { custom_domain: domain });
  const hosts = [t.host as string, domain];
  // Two hosts, two cluster slots: the invalidation's DEL spans slots.
  assert.notEqual(keySlot(`card:h:{${hosts[0]}}`), keySlot(`card:h:{${hosts[1]}}`));
  // Each instance caches the card (Redis on the first ask, in process on the second).
  for (const s of each()) for (const h of hosts) for (let i = 0; i < 2; i++) assert.equal((await card(s, h)).status, 200);
  // A cluster carries PUBLISH to the other nodes over its bus, asynchronously: the change waits
  // until every instance has confirmed it dropped its copy, so the next request anywhere sees it.
  assert.equal((await patchTunnel(lb(), owner, t.id, { discoverable: false })).status, 200);
  for (const s of each()) for (const h of hosts) assert.equal((await card(s, h)).status, 404, `${h} at once`);
  assert.equal((await patchTunnel(lb(), owner, t.id, { discoverable: true })).status, 200);
  for (const s of each()) for (const h of hosts) assert.equal((await card(s, h)).status, 200, `${h} at once`);
});

test('status single flight: a cold burst through the load balancer probes each upstream once', opts, async () => {
  const { broker, api } = upstreams();
  broker.hits = 0;
  api.hits = 0;
  const replies = await Promise.all(Array.from({ length: 30 }, () => lb().request('/status', { host: ZONE })));
  assert.ok(replies.every((r) => r.status === 200), replies.map((r) => r.status).join(','));
  assert.equal(new Set(replies.map((r) => r.json.checked_at)).size, 1, 'one roll-up for all three instances');
  assert.equal(broker.hits, 1);
  assert.equal(api.hits, 1);
});

test("an organization member removed through one instance loses access on every instance at once", opts, async () => {
  const [owner, member] = [await signedIn(lb()), await signedIn(lb())];
  await lb().deps.db.account.updateMany({ where: { id: { in: [owner.id, member.id] } }, data: { emailVerified: true } });
  const slug = `scale-${Date.now().toString(36)}`;
  const org = await lb().request('/api/orgs', { method: 'POST', bearer: owner.token, body: { slug, name: 'Scale Team' } });
  assert.equal(org.status, 201, org.text);
  await lb().deps.db.orgMember.create({ data: { orgId: org.json.id, accountId: member.id, role: 'member' } });
  const tunnel = await lb().request(`/api/orgs/${slug}/tunnels`, { method: 'POST', bearer: owner.token, body: { subdomain: 'team' } });
  assert.equal(tunnel.status, 201, tunnel.text);
  const personal = await lb().request('/api/tokens', { method: 'POST', bearer: member.token, body: { name: 'ci', scopes: ['tunnels:write'] } });
  assert.equal(personal.status, 201, personal.text);
  // Cached everywhere: the session, the token, and what they reach.
  for (const s of each()) {
    assert.equal((await s.request(`/api/orgs/${slug}`, { bearer: member.token })).status, 200);
    assert.equal((await s.request(`/api/tunnels/${tunnel.json.id}`, { bearer: personal.json.token })).status, 200);
  }
  assert.equal((await each()[0]!.request(`/api/orgs/${slug}/members/${member.id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
  for (const s of each()) {
    assertProblem(await s.request(`/api/orgs/${slug}`, { bearer: member.token }), 404, 'NOT_FOUND');
    assertProblem(await s.request(`/api/tunnels/${tunnel.json.id}`, { bearer: personal.json.token }), 404, 'NOT_FOUND');
    assert.equal((await s.request('/api/account', { bearer: member.token })).status, 200, 'still signed in, only the organization is gone');
  }
  // A transfer moves the card's host on every instance at once (cards cached everywhere first).
  assert.equal((await patchTunnel(lb(), owner, tunnel.json.id, { discoverable: true })).status, 200);
  const orgHost = `team--${slug}.${ZONE}`;
  const ownHost = `team--${owner.slug}.${ZONE}`;
  for (const s of each()) for (let i = 0; i < 2; i++) assert.equal((await card(s, orgHost)).status, 200);
  const moved = await each()[1]!.request(`/api/tunnels/${tunnel.json.id}/transfer`, { method: 'POST', bearer: owner.token, body: { to: 'me' } });
  assert.equal(moved.status, 200, moved.text);
  assert.equal(moved.json.host, ownHost);
  for (const s of each()) {
    assert.equal((await card(s, orgHost)).status, 404, 'the old host at once');
    assert.equal((await card(s, ownHost)).status, 200, 'the new host at once');
  }
});

test('a cluster master crashes: answers stay right, the cache is back within seconds, no revocation is lost', opts, async () => {
  const w = world();
  const account = await signup(lb());
  const caller = await login(lb(), account);
  // Sessions until three of them have their cache entry on the same master (slots are random:
  // a fixed number of sign-ins would leave that to chance).
  const keyOf = (s: Session) => `session:${timeOrderedTokenKey(s.token)}`;
  const byMaster = new Map<number, Session[]>();
  let onTarget: Session[] = [];
  for (let i = 0; i < 40 && onTarget.length < 3; i++) {
    const session = await login(lb(), account);
    const master = w.cluster.masterOf(keyOf(session)).port;
    const list = [...(byMaster.get(master) ?? []), session];
    byMaster.set(master, list);
    onTarget = list;
  }
  assert.ok(onTarget.length >= 3, `three sessions on one master within 40 sign-ins (slots ${[...byMaster.values()].flat().map((s) => keySlot(keyOf(s))).join(',')})`);
  const [revokedBefore, revokedDuring, survivor] = onTarget as [Session, Session, Session];
  for (const s of each()) for (const x of onTarget) assert.equal((await s.request('/api/account', { bearer: x.token })).status, 200);

  // Revoked just before the crash: its tombstone was acknowledged by the replica (WAIT).
  const beforeId = await sessionId(lb(), caller, revokedBefore.token);
  assert.equal((await lb().request(`/api/sessions/${beforeId}`, { method: 'DELETE', bearer: caller.token })).status, 204);
  const duringId = await sessionId(lb(), caller, revokedDuring.token);

  const epoch = async () => Number((await w.lb.deps.db.cacheEpoch.findUnique({ where: { id: 1 } }))?.epoch ?? 0);
  const epochBefore = await epoch();
  const crash = w.cluster.failMasterOf(keyOf(revokedBefore));
  // Revoked while the master is down: the tombstone cannot be written, the epoch is bumped.
  await new Promise((r) => setTimeout(r, 200));
  const t0 = Date.now();
  assert.equal((await lb().request(`/api/sessions/${duringId}`, { method: 'DELETE', bearer: caller.token })).status, 204);
  let slowest = Date.now() - t0;
  assert.ok((await epoch()) > epochBefore, 'the tombstone could not be written: the revocation epoch was bumped');
  // During the failover, through the balancer: right answers, each within a few seconds.
  const checks: Promise<void>[] = [];
  for (const s of [...each(), lb()]) {
    checks.push(
      (async () => {
        for (const [token, status] of [
          [revokedBefore.token, 401],
          [revokedDuring.token, 401],
          [survivor.token, 200],
        ] as const) {
          const t = Date.now();
          assert.equal((await s.request('/api/account', { bearer: token })).status, status);
          slowest = Math.max(slowest, Date.now() - t);
        }
      })(),
    );
  }
  await Promise.all(checks);
  const { failoverMs } = await crash;
  assert.ok(slowest < 5000, `slowest answer during the failover: ${slowest} ms`);
  assert.ok(failoverMs < 10_000, `failover took ${failoverMs} ms`);

  // The cache answers again on every instance within a few seconds of the promotion.
  const recovered = Date.now();
  for (const s of each()) {
    for (;;) {
      try {
        await s.deps.cache.get(keyOf(survivor));
        break;
      } catch {
        assert.ok(Date.now() - recovered < 10_000, 'cache not back within 10 s of the failover');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
  // The tombstone written before the crash survived on the promoted replica.
  assert.equal(await each()[0]!.deps.cache.get(keyOf(revokedBefore)), 'revoked');
  for (const s of [...each(), lb()]) {
    assertProblem(await s.request('/api/account', { bearer: revokedBefore.token }), 401, 'UNAUTHENTICATED');
    assertProblem(await s.request('/api/account', { bearer: revokedDuring.token }), 401, 'UNAUTHENTICATED');
    assert.equal((await s.request('/api/account', { bearer: survivor.token })).status, 200);
  }
  // Shared state works again after the failover: a new revocation is seen everywhere at once.
  const afterId = await sessionId(lb(), caller, survivor.token);
  assert.equal((await lb().request(`/api/sessions/${afterId}`, { method: 'DELETE', bearer: caller.token })).status, 204);
  for (const s of each()) assertProblem(await s.request('/api/account', { bearer: survivor.token }), 401, 'UNAUTHENTICATED');
});
