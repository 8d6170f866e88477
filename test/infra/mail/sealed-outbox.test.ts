// Link emails at rest: outbox bodies are sealed with AES-256-GCM under ENCRYPTION_KEY (no token
// readable in the database), delivered in clear, and a link email still unsent when its link
// expires is dropped, never sent late. Without ENCRYPTION_KEY (never in production) the key is
// generated into DATA_DIR once and reused.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { MailWorker } from '../../../src/infra/mail/worker.js';
import { login, signup } from '../../support/accounts.js';
import { startTestServer, useServer } from '../../support/server.js';

const s = useServer();

test('outbox rows hold sealed bodies: the link token never rests in clear', async () => {
  s.smtp.failing = true;
  try {
    const a = await signup(s);
    const row = await s.deps.db.outboxEmail.findFirstOrThrow({ where: { accountId: a.id, kind: 'verify-email' } });
    assert.match(row.textBody, /^enc:v1:[A-Za-z0-9+/=]+$/);
    assert.match(row.htmlBody, /^enc:v1:[A-Za-z0-9+/=]+$/);
    assert.doesNotMatch(row.textBody, /token=/);
    assert.ok(row.expiresAt, 'a link email knows when its link expires');
    const opened = s.deps.cipher.open(row.textBody);
    assert.match(opened, /verify-email\?token=[a-z2-7]{32}/);
    s.smtp.failing = false;
    const mail = await s.smtp.waitFor(a.email, 'verify-email');
    assert.match(mail.token ?? '', /^[a-z2-7]{32}$/);
    assert.ok(opened.includes(mail.token!), 'the delivered link is the sealed one');
  } finally {
    s.smtp.failing = false;
  }
});

test('every body rests sealed, the new-network alert written by the sign-in statement too', async () => {
  s.smtp.failing = true;
  try {
    const a = await signup(s);
    // Sign-up remembers its network; forgetting it makes the next sign-in come from a new one.
    await s.deps.db.knownNetwork.deleteMany({ where: { accountId: a.id } });
    await login(s, a);
    const row = await s.deps.db.outboxEmail.findFirstOrThrow({ where: { accountId: a.id, kind: 'login-alert' } });
    assert.match(row.textBody, /^enc:v1:[A-Za-z0-9+/=]+$/);
    assert.match(row.htmlBody, /^enc:v1:[A-Za-z0-9+/=]+$/);
    assert.match(s.deps.cipher.open(row.textBody), /signed in from a network we have not seen before/);
    s.smtp.failing = false;
    const mail = await s.smtp.waitFor(a.email, 'login-alert');
    assert.match(mail.raw, /signed in from a network/);
  } finally {
    s.smtp.failing = false;
  }
});

test('a link email still unsent when its link expires is dropped, not sent', async () => {
  s.smtp.failing = true;
  let email: string;
  try {
    const a = await signup(s);
    email = a.email;
    assert.equal((await s.request('/auth/forgot-password', { method: 'POST', body: { email: a.email } })).status, 204);
    const deadline = Date.now() + 10_000;
    // Wait for a refused attempt to be recorded, not just for the row: a send already under way
    // when the outage ends below would otherwise deliver the link, whatever the clock says next.
    while ((await s.deps.db.outboxEmail.count({ where: { accountId: a.id, kind: 'reset-password', attempts: { gte: 1 } } })) === 0) {
      assert.ok(Date.now() < deadline, 'the reset email was never attempted');
      s.deps.mailWorker.nudge();
      await new Promise((r) => setTimeout(r, 50));
    }
    // Past the reset link's hour (the verification link's 24 hours are not over).
    s.clock.advance(61 * 60_000);
  } finally {
    s.smtp.failing = false;
  }
  s.deps.mailWorker.nudge();
  await s.smtp.waitFor(email, 'verify-email');
  const deadline = Date.now() + 10_000;
  while ((await s.deps.db.outboxEmail.count({ where: { toAddress: email } })) > 0) {
    assert.ok(Date.now() < deadline, 'the outbox was not emptied');
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(s.smtp.to(email, 'reset-password').length, 0, 'the expired reset link was never sent');
});

test('without ENCRYPTION_KEY the embedded default generates a private key file once and keeps using it', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sealed-outbox-'));
  const env = { ENCRYPTION_KEY: undefined, DATA_DIR: dataDir };
  try {
    const first = await startTestServer({ env });
    let sealed: string;
    try {
      assert.equal(statSync(join(dataDir, 'encryption.key')).mode & 0o777, 0o600);
      sealed = first.deps.cipher.seal('hello');
    } finally {
      await first.close();
    }
    const second = await startTestServer({ env });
    try {
      assert.equal(second.deps.cipher.open(sealed), 'hello', 'the same key after a restart');
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a link that expires while its batch is being sent is dropped, not sent late', async () => {
  // A worker of its own over the same database, with a transport that takes an hour per email
  // on the test clock: the first email of the batch goes, the second's link is over by then.
  await s.deps.mailWorker.stop();
  let now = Date.now();
  const sent: string[] = [];
  const tag = randomUUID();
  const worker = new MailWorker({
    sql: s.deps.sql,
    transport: {
      async send(mail) {
        sent.push(mail.to);
        if (mail.to.includes(tag)) now += 60 * 60_000;
      },
      close() {},
    },
    from: 'test@example.test',
    logger: pino({ level: 'silent' }),
    cipher: s.deps.cipher,
    clock: () => new Date(now),
  });
  try {
    const row = (to: string, createdAt: Date) => ({
      kind: 'reset-password',
      toAddress: to,
      subject: 'Reset',
      textBody: s.deps.cipher.seal('link'),
      htmlBody: s.deps.cipher.seal('link'),
      createdAt,
      nextAttemptAt: new Date(Date.now() - 1000),
      expiresAt: new Date(now + 30 * 60_000),
    });
    // Written newest first, so the table's physical order is the reverse of the sending order:
    // the batch must still go out oldest first.
    await s.deps.db.outboxEmail.createMany({
      data: [row(`second-${tag}@example.test`, new Date(Date.now() - 1000)), row(`first-${tag}@example.test`, new Date(Date.now() - 2000))],
    });
    await worker.drain();
    assert.deepEqual(sent.filter((to) => to.includes(tag)), [`first-${tag}@example.test`]);
    assert.equal(await s.deps.db.outboxEmail.count({ where: { toAddress: { contains: tag } } }), 0, 'the late one is gone, not retried');
  } finally {
    await worker.stop();
    s.deps.mailWorker.start();
  }
});

test('a burst drains with one claim per batch and one expired-link sweep per poll interval', async () => {
  await s.deps.mailWorker.stop();
  const tag = randomUUID();
  const sent: string[] = [];
  const statements: string[] = [];
  const worker = new MailWorker({
    sql: (text, values) => {
      statements.push(text);
      return s.deps.sql(text, values);
    },
    transport: {
      async send(mail) {
        sent.push(mail.to);
      },
      close() {},
    },
    from: 'test@example.test',
    logger: pino({ level: 'silent' }),
    cipher: s.deps.cipher,
    clock: () => new Date(),
    batchSize: 2,
    pollMs: 60_000,
  });
  const count = (word: string) => statements.filter((t) => t.includes(word)).length;
  try {
    const row = (n: number) => ({ kind: 'new-login', toAddress: `${n}-${tag}@example.test`, subject: 'Hi', textBody: 'x', htmlBody: 'x', nextAttemptAt: new Date(Date.now() - 1000) });
    await s.deps.db.outboxEmail.createMany({ data: [row(1), row(2), row(3)] });
    await worker.drain();
    assert.equal(sent.filter((to) => to.includes(tag)).length, 3);
    // Full batches of 2, then a short one that shows the queue is empty: 3 rows, 2 claims (the
    // count allows for due rows another test file left in a shared database).
    assert.equal(count('WITH claimed'), Math.floor(sent.length / 2) + 1, 'no claim after a short batch');
    assert.equal(count('expires_at <='), 1, 'one sweep for the whole drain');
    await s.deps.db.outboxEmail.createMany({ data: [row(4)] });
    await worker.drain();
    assert.equal(sent.filter((to) => to.includes(tag)).length, 4);
    assert.equal(count('expires_at <='), 1, 'no second sweep within the poll interval');
    assert.equal(await s.deps.db.outboxEmail.count({ where: { toAddress: { contains: tag } } }), 0);
  } finally {
    await worker.stop();
    s.deps.mailWorker.start();
  }
});
