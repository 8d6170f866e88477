// No server-side request forgery through webhooks (API.md section 15): https only, and a host
// whose every address is public, checked at creation and again at each delivery, with a refusal
// that tells a host that cannot be found from one that resolves to a private address; the
// schedule of retries is the operator's to change, and after its last attempt a delivery has failed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromIp, randomIp, signedIn, type SignedIn } from '../../support/accounts.js';
import { gql } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { WebhookWorker } from '../../../src/domain/webhooks/delivery.js';
import { ConfigError, loadConfig } from '../../../src/infra/config.js';

const s = useServer({ env: { TRUST_PROXY: 'true' } });

/** A worker of this test's own on the server's stores (the server's own is stopped first). */
function workerOf(opts: Pick<ConstructorParameters<typeof WebhookWorker>[0], 'retryScheduleMs' | 'allowPrivate' | 'fetchOptions'>): WebhookWorker {
  const { db, cipher, logger, outbox, mailContext } = s.deps;
  return new WebhookWorker({ db, cipher, clock: s.clock.now, logger, outbox, mailNotify: () => {}, mailContext, timeoutMs: 2000, ...opts });
}

async function account(): Promise<SignedIn> {
  return signedIn(s, { headers: fromIp(randomIp()), verified: true });
}

test('creation refuses http, credentials, and every private, loopback, link-local, CGNAT, metadata and IPv6 form', async () => {
  const a = await account();
  const refused: [string, RegExp][] = [
    ['http://example.com/hook', /Only https/],
    ['https://user:pw@example.com/hook', /user name or password/],
    ['https://10.0.0.1/hook', /private address \(private\)/],
    ['https://172.16.5.4/hook', /private address \(private\)/],
    ['https://192.168.1.1/hook', /private address \(private\)/],
    ['https://127.0.0.1/hook', /private address \(loopback\)/],
    ['https://localhost/hook', /private address \(loopback\)/],
    ['https://169.254.169.254/latest/meta-data/', /private address \(linkLocal\)/],
    ['https://100.64.0.1/hook', /private address \(carrierGradeNat\)/],
    ['https://0.0.0.0/hook', /private address \(unspecified\)/],
    ['https://[::1]/hook', /private address \(loopback\)/],
    ['https://[fe80::1]/hook', /private address \(linkLocal\)/],
    ['https://[fd00:ec2::254]/hook', /private address \(uniqueLocal\)/],
    ['https://[::ffff:10.0.0.1]/hook', /private address \(private\)/],
    ['https://[::ffff:a9fe:a9fe]/hook', /private address \(linkLocal\)/],
    ['https://[64:ff9b::a00:1]/hook', /private address/],
    ['https://[2002:a00:1::]/hook', /private address/],
  ];
  for (const [url, why] of refused) {
    const r = await s.request('/api/webhooks', { method: 'POST', bearer: a.token, body: { url, events: ['tunnel.created'] } });
    assertProblem(r, 400, 'BAD_REQUEST');
    assert.match(r.json.detail, why, url);
  }
  assert.equal(await s.deps.db.webhook.count({ where: { accountId: a.id } }), 0);
});

test('a host that cannot be found and a private one are told apart, at creation and re-pointing, on REST and GraphQL', async () => {
  const a = await account();
  const notFound = (host: string) => new RegExp(`^The host ${host.replace(/\./g, '\\.')} could not be found: `);
  const PRIVATE = /private address \((loopback|private)\); webhooks are only delivered to public addresses\.$/;
  const cases: [string, RegExp][] = [
    ['https://hooks.example.invalid/in', notFound('hooks.example.invalid')],
    ['https://receiver.test/in', notFound('receiver.test')],
    ['https://localhost/in', /^The host localhost resolves to a private address \(loopback\); webhooks are only delivered to public addresses\.$/],
    ['https://127.0.0.1/in', /^127\.0\.0\.1 is a private address \(loopback\); webhooks are only delivered to public addresses\.$/],
    ['https://192.168.10.20/in', /^192\.168\.10\.20 is a private address \(private\); webhooks are only delivered to public addresses\.$/],
  ];
  // An endpoint to re-point (written as the create flow would; the name is fictional).
  const w = await s.deps.db.webhook.create({
    data: { accountId: a.id, url: 'https://hooks.example.com/in', events: ['tunnel.created'], secret: s.deps.cipher.seal(`whsec_${Buffer.alloc(32, 5).toString('base64')}`) },
  });
  const details: string[] = [];
  for (const [url, why] of cases) {
    const created = await s.request('/api/webhooks', { method: 'POST', bearer: a.token, body: { url, events: ['tunnel.created'] } });
    assertProblem(created, 400, 'BAD_REQUEST', `create ${url}`);
    assert.match(created.json.detail, why, url);
    assert.deepEqual(created.json.errors, [{ pointer: '/url', detail: created.json.detail }], 'the URL field is the one named');
    const repointed = await s.request(`/api/webhooks/${w.id}`, { method: 'PATCH', bearer: a.token, body: { url } });
    assertProblem(repointed, 400, 'BAD_REQUEST', `re-point to ${url}`);
    assert.equal(repointed.json.detail, created.json.detail, url);
    const viaCreate = await gql(s, 'mutation ($url: String!) { createWebhook(url: $url, events: ["tunnel.created"]) { secret } }', { url }, { bearer: a.token });
    const viaUpdate = await gql(s, 'mutation ($id: ID!, $url: String!) { updateWebhook(id: $id, url: $url) { id } }', { id: w.id, url }, { bearer: a.token });
    for (const r of [viaCreate, viaUpdate]) {
      assert.equal(r.json.errors?.[0]?.extensions?.code, 'BAD_REQUEST', r.text);
      assert.equal(r.json.errors[0].message, created.json.detail, url);
      assert.equal(r.json.errors[0].extensions.field, 'url');
    }
    details.push(created.json.detail);
  }
  // Not found never reads as private, nor private as not found.
  for (const d of details.slice(0, 2)) assert.doesNotMatch(d, /private/);
  for (const d of details.slice(2)) {
    assert.match(d, PRIVATE);
    assert.doesNotMatch(d, /could not be found/);
  }
  assert.equal(await s.deps.db.webhook.count({ where: { accountId: a.id } }), 1, 'nothing created');
  assert.equal((await s.deps.db.webhook.findUniqueOrThrow({ where: { id: w.id } })).url, 'https://hooks.example.com/in', 'nothing re-pointed');
});

test('a host that turned private after creation is refused at delivery, logged, and retried', async () => {
  const a = await account();
  // Created while its name was public (written as the create flow would; the name is fictional).
  const w = await s.deps.db.webhook.create({
    data: { accountId: a.id, url: 'https://hooks.example.com/in', events: ['tunnel.created'], secret: s.deps.cipher.seal(`whsec_${Buffer.alloc(32, 3).toString('base64')}`) },
  });
  await s.deps.webhookWorker.stop();
  try {
    const worker = workerOf({
      retryScheduleMs: [5000],
      allowPrivate: false,
      // The name now answers a private address (DNS rebinding, or a changed record).
      fetchOptions: { resolve: async () => [{ address: '10.1.2.3', family: 4 }] },
    });
    const sent = await s.request(`/api/webhooks/${w.id}/test`, { method: 'POST', bearer: a.token });
    assert.equal(sent.status, 202);
    worker.start();
    await worker.drain();
    await worker.stop();
    const log = (await s.request(`/api/webhooks/${w.id}/deliveries`, { bearer: a.token })).json.deliveries;
    assert.equal(log.length, 1);
    assert.equal(log[0].status_code, null);
    assert.match(log[0].error, /non-public address \(private\)/);
    assert.equal(Date.parse(log[0].next_attempt_at) - Date.parse(log[0].at), 5000, 'retried on the schedule');
  } finally {
    s.deps.webhookWorker.start();
  }
});

test('WEBHOOK_RETRY_SCHEDULE: the operator sets the waits; after the last attempt the delivery has failed', async () => {
  assert.deepEqual(loadConfig({}).webhookRetryScheduleMs, [5, 300, 1800, 7200, 18000, 36000, 36000].map((n) => n * 1000));
  assert.deepEqual(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1, 2' }).webhookRetryScheduleMs, [1000, 2000]);
  for (const bad of ['soon', '1,,2', '-1', '5;300']) {
    assert.throws(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: bad }), (e: unknown) => e instanceof ConfigError && /WEBHOOK_RETRY_SCHEDULE/.test(e.message), bad);
  }
  assert.equal(loadConfig({}).webhookTimeoutMs, 15_000);
  assert.throws(() => loadConfig({ WEBHOOK_TIMEOUT_SECONDS: '0' }), ConfigError);

  const a = await account();
  const w = await s.deps.db.webhook.create({
    data: { accountId: a.id, url: 'https://127.0.0.1:1/never', events: ['tunnel.created'], secret: s.deps.cipher.seal(`whsec_${Buffer.alloc(32, 4).toString('base64')}`) },
  });
  await s.deps.webhookWorker.stop();
  try {
    const worker = workerOf({ retryScheduleMs: [1000, 2000], allowPrivate: true });
    await s.request(`/api/webhooks/${w.id}/test`, { method: 'POST', bearer: a.token });
    worker.start();
    await worker.drain();
    s.clock.advance(1000);
    await worker.drain();
    s.clock.advance(2000);
    await worker.drain();
    s.clock.advance(3_600_000);
    await worker.drain();
    await worker.stop();
    const log = (await s.request(`/api/webhooks/${w.id}/deliveries`, { bearer: a.token })).json.deliveries;
    assert.deepEqual(log.map((d: { attempt: number }) => d.attempt), [3, 2, 1], 'three attempts: the first and one per wait');
    assert.deepEqual(log.map((d: { next_attempt_at: string | null }) => d.next_attempt_at === null), [true, false, false]);
    assert.ok(log.every((d: { error: string | null }) => d.error !== null));
    const row = await s.deps.db.webhookDelivery.findFirst({ where: { webhookId: w.id } });
    assert.equal(row?.status, 'failed');
  } finally {
    s.clock.advance(-3_603_000);
    s.deps.webhookWorker.start();
  }
});
