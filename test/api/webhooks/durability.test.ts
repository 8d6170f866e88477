// At least once, never lost (API.md section 15): a worker killed with SIGKILL in the middle of a
// delivery leaves it to another instance once its lease ends; two instances sharing the queue
// never send one delivery twice while both live. Both need processes sharing one PostgreSQL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fromIp, randomIp, signedIn } from '../../support/accounts.js';
import { needs } from '../../support/backends.js';
import { startTestServer, TEST_ENCRYPTION_KEY, useServer } from '../../support/server.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';

const shared = needs(['DATABASE_URL'], 'several processes share the queue in one PostgreSQL');
const receiver = await WebhookReceiver.start();
after(() => receiver.close());
const s = useServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', TRUST_PROXY: 'true' } }, shared);

async function endpointOf(token: string, path: string): Promise<string> {
  const r = await s.request('/api/webhooks', { method: 'POST', bearer: token, body: { url: `${receiver.url}${path}`, events: ['tunnel.created'] } });
  assert.equal(r.status, 201, r.text);
  return r.json.id;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('kill -9 during a delivery: another instance sends it once the lease ends, with the same webhook-id', shared, async () => {
  const a = await signedIn(s, { headers: fromIp(randomIp()), verified: true });
  const path = `/kill-${Date.now()}`;
  const id = await endpointOf(a.token, path);
  let calls = 0;
  receiver.answer = (r) => (r.path === path && ++calls === 1 ? 'hang' : { status: 200 });
  // Only the child process works the queue until it is killed.
  await s.deps.webhookWorker.stop();
  const dataDir = mkdtempSync(join(tmpdir(), 'webhook-kill-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: process.env.DATABASE_URL,
      DATA_DIR: dataDir,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_TIMEOUT_SECONDS: '2',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  try {
    const deadline = Date.now() + 60_000;
    while (!/listening on/.test(out)) {
      assert.ok(Date.now() < deadline && child.exitCode === null, `child did not start:\n${out}`);
      await sleep(50);
    }
    const sent = await s.request(`/api/webhooks/${id}/test`, { method: 'POST', bearer: a.token });
    assert.equal(sent.status, 202);
    await receiver.waitFor(() => calls === 1, 10_000);
    const killedAt = Date.now();
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    s.deps.webhookWorker.start();
    // The child's lease (2 s + 10 s from its claim) must end first: nothing comes before.
    await sleep(3000);
    assert.equal(calls, 1, 'the lease holds while it lasts');
    await receiver.waitFor(() => calls === 2, 15_000);
    assert.ok(Date.now() - killedAt >= 8000, 'sent again only after the lease');
    const both = receiver.received.filter((r) => r.path === path);
    assert.equal(both[0]!.headers['webhook-id'], both[1]!.headers['webhook-id']);
    assert.equal(both[0]!.headers['webhook-id'], sent.json.event_id);
    const deadline2 = Date.now() + 5000;
    let row = await s.deps.db.webhookDelivery.findFirst({ where: { webhookId: id } });
    while (row?.status !== 'succeeded' && Date.now() < deadline2) {
      await sleep(50);
      row = await s.deps.db.webhookDelivery.findFirst({ where: { webhookId: id } });
    }
    assert.equal(row?.status, 'succeeded');
    assert.equal(row?.attempts, 1, 'the killed attempt was never recorded; the one that finished was');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    receiver.answer = { status: 200 };
    s.deps.webhookWorker.start();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('two instances share the queue: every delivery goes out once, and both instances send', shared, async () => {
  // One mailbox for both: either instance's mail worker may send the shared outbox's emails.
  const second = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', TRUST_PROXY: 'true' }, smtp: s.smtp });
  try {
    const a = await signedIn(s, { headers: fromIp(randomIp()), verified: true });
    const paths = [1, 2, 3].map((i) => `/pair-${Date.now()}-${i}`);
    const ids: string[] = [];
    for (const p of paths) ids.push(await endpointOf(a.token, p));
    const delivered = async (srv: typeof s) => {
      const text = await srv.deps.metrics.registry.getSingleMetricAsString('webhook_deliveries_total');
      return Number(/outcome="delivered"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await delivered(s);
    // Slow enough that one instance's ten slots fill up: the other's worker takes its share.
    receiver.answer = { status: 200, delayMs: 100 };
    const count = 20;
    // Half the events through each instance: each nudges its own worker, the other polls.
    await Promise.all(
      Array.from({ length: count }, (_, i) => (i % 2 === 0 ? s : second).request(`/api/webhooks/${ids[i % 3]}/test`, { method: 'POST', bearer: a.token })),
    );
    await receiver.waitFor(() => receiver.received.filter((r) => paths.includes(r.path)).length >= count, 15_000);
    await sleep(1000);
    const got = receiver.received.filter((r) => paths.includes(r.path));
    assert.equal(got.length, count, 'no delivery sent twice');
    assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, count);
    const byFirst = (await delivered(s)) - before;
    const bySecond = await delivered(second);
    assert.equal(byFirst + bySecond, count);
    assert.ok(byFirst > 0 && bySecond > 0, `both instances delivered (${byFirst} and ${bySecond})`);
  } finally {
    receiver.answer = { status: 200 };
    await second.close();
  }
});
