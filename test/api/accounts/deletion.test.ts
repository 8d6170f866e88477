// DELETE /api/account (SPEC 3.4): wrong password 401, typed email mismatch 400, success 204;
// every session dies at once and everything the account owns is gone.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { login, signedIn, signup, type Account } from '../../support/accounts.js';
import { gql } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';

const s = useServer();

const del = (token: string | undefined, body: unknown) =>
  s.request('/api/account', { method: 'DELETE', body, ...(token ? { bearer: token } : {}) });
const me = (token: string) => s.request('/api/account', { bearer: token });

/** One row in every table an account owns. */
async function seedOwnedRows(a: Account): Promise<void> {
  const db = s.deps.db;
  const u = randomBytes(6).toString('hex');
  await db.tunnel.create({ data: { accountId: a.id, subdomain: `t${u}`, customDomain: `${u}.example.net` } });
  await db.webhook.create({ data: { accountId: a.id, url: `https://hooks.example.com/${u}` } });
  await db.serviceToken.create({ data: { accountId: a.id, name: `ci-${u}`, tokenHash: randomBytes(32).toString('hex') } });
  await db.usageCounter.create({ data: { accountId: a.id, metric: 'requests', period: new Date('2026-11-01T00:00:00Z'), value: 42n } });
  await db.linkedIdentity.create({ data: { accountId: a.id, provider: 'github', providerUserId: `gh-${u}`, email: a.email } });
  await db.pendingLink.create({
    data: {
      accountId: a.id,
      tokenHash: randomBytes(32).toString('hex'),
      provider: 'google',
      providerUserId: `g-${u}`,
      providerEmail: a.email,
      expiresAt: new Date(Date.now() + 900_000),
    },
  });
  await db.knownNetwork.create({ data: { accountId: a.id, network: `10.${u.length}.${u.length}.0/24` } });
  await db.emailToken.create({
    data: { accountId: a.id, kind: 'reset-password', tokenHash: randomBytes(32).toString('hex'), expiresAt: new Date(Date.now() + 3600_000) },
  });
  // Far in the future so that the mail worker leaves it alone during the test.
  await db.outboxEmail.create({
    data: {
      id: randomUUID(),
      accountId: a.id,
      kind: 'welcome',
      toAddress: a.email,
      subject: 'held',
      textBody: 'held',
      htmlBody: 'held',
      nextAttemptAt: new Date(Date.now() + 3600_000),
    },
  });
}

async function countOwned(accountId: string): Promise<Record<string, number>> {
  const db = s.deps.db;
  const where = { accountId };
  return {
    accounts: await db.account.count({ where: { id: accountId } }),
    sessions: await db.session.count({ where }),
    tunnels: await db.tunnel.count({ where }),
    webhooks: await db.webhook.count({ where }),
    service_tokens: await db.serviceToken.count({ where }),
    usage_counters: await db.usageCounter.count({ where }),
    linked_identities: await db.linkedIdentity.count({ where }),
    pending_links: await db.pendingLink.count({ where }),
    known_networks: await db.knownNetwork.count({ where }),
    email_tokens: await db.emailToken.count({ where }),
    outbox_emails: await db.outboxEmail.count({ where }),
  };
}

test('delete with a wrong password answers 401 and deletes nothing', async () => {
  const a = await signedIn(s);
  assertProblem(await del(a.token, { email: a.email, password: 'wrong password' }), 401, 'UNAUTHENTICATED');
  assert.equal((await me(a.token)).status, 200);
});

test('delete with a typed email that does not match answers 400 and deletes nothing', async () => {
  const a = await signedIn(s);
  const other = await signup(s);
  assertProblem(await del(a.token, { email: other.email, password: a.password }), 400, 'BAD_REQUEST');
  assertProblem(await del(a.token, { email: '', password: a.password }), 400, 'BAD_REQUEST');
  assertProblem(await del(a.token, { password: a.password }), 400, 'BAD_REQUEST');
  assert.equal((await me(a.token)).status, 200);
});

test('delete needs a session: 401', async () => {
  const a = await signup(s);
  assertProblem(await del(undefined, { email: a.email, password: a.password }), 401, 'UNAUTHENTICATED');
});

test('delete answers 204; every session fails on its next request and every owned row is gone, others survive', async () => {
  const a = await signedIn(s);
  const second = await login(s, a);
  const third = await login(s, a);
  // Cache every session first, so that the check below proves the cache entries were dropped.
  for (const t of [a.token, second.token, third.token]) assert.equal((await me(t)).status, 200);
  const bystander = await signedIn(s);
  await seedOwnedRows(a);
  await seedOwnedRows(bystander);
  const before = await countOwned(a.id);
  for (const [table, n] of Object.entries(before)) assert.ok(n >= 1, `seeded ${table}`);

  // The typed email is compared case-insensitively.
  const r = await del(second.token, { email: a.email.toUpperCase(), password: a.password });
  assert.equal(r.status, 204);
  assert.equal(r.text, '');

  for (const t of [a.token, second.token, third.token]) assertProblem(await me(t), 401, 'UNAUTHENTICATED');
  assertProblem(await s.request('/api/sessions', { cookie: `session=${third.cookie}` }), 401, 'UNAUTHENTICATED');
  const after = await countOwned(a.id);
  for (const [table, n] of Object.entries(after)) assert.equal(n, 0, `${table} rows left after deletion`);
  const survivor = await countOwned(bystander.id);
  for (const [table, n] of Object.entries(survivor)) assert.ok(n >= 1, `bystander lost its ${table}`);
  assert.equal((await me(bystander.token)).status, 200);
  assertProblem(
    await s.request('/auth/login', { method: 'POST', body: { email: a.email, password: a.password } }),
    401,
    'UNAUTHENTICATED',
  );
  // The email is free again; the slug is held for 30 days (no one may take over its tunnel hosts).
  const again = await signup(s, { email: a.email });
  assert.notEqual(again.slug, a.slug);
  assert.ok(again.slug.startsWith(`${a.slug}-`), again.slug);
});

test('deleteAccount over GraphQL (cookie) clears the cookie and kills the session', async () => {
  const a = await signedIn(s);
  const r = await gql(
    s,
    'mutation ($email: String!, $password: String!) { deleteAccount(email: $email, password: $password) }',
    { email: a.email, password: a.password },
    { cookie: `session=${a.cookie}` },
  );
  assert.equal(r.json.data?.deleteAccount, true, r.text);
  const cleared = (r.headers['set-cookie'] ?? []).find((c) => c.startsWith('session='));
  assert.ok(cleared && /session=;/.test(cleared));
  assertProblem(await me(a.token), 401, 'UNAUTHENTICATED');
});
