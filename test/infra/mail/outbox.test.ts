// The mail outbox (DESIGN "Data and tokens"): an SMTP outage never fails the request that causes
// an email and never loses it; the email goes out once SMTP is back. Every email carries its
// X-Email-Kind header.
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { startTestServer, useServer } from '../../support/server.js';
import { TestSmtp } from '../../support/smtp.js';
import { login, signup, verify } from '../../support/accounts.js';

const s = useServer();

test('every kind of email arrives through SMTP with its X-Email-Kind header', async () => {
  const a = await signup(s);
  await verify(s, a);
  const session = await login(s, a, {});
  await s.request('/auth/forgot-password', { method: 'POST', body: { email: a.email } });
  const newEmail = `moved-${a.email}`;
  await s.request('/auth/change-email', { method: 'POST', bearer: session.token, body: { current_password: a.password, new_email: newEmail } });
  for (const kind of ['verify-email', 'welcome', 'reset-password']) {
    const mail = await s.smtp.waitFor(a.email, kind);
    assert.match(mail.raw, new RegExp(`^X-Email-Kind: ${kind}\\r?$`, 'im'));
    assert.ok(mail.subject.length > 0);
  }
  const change = await s.smtp.waitFor(newEmail, 'confirm-email-change');
  assert.match(change.raw, /^X-Email-Kind: confirm-email-change\r?$/im);
});

test('while SMTP refuses mail, requests still succeed; the emails go out once it is back', async () => {
  s.smtp.failing = true;
  let a;
  try {
    a = await signup(s);
    const r = await s.request('/auth/forgot-password', { method: 'POST', body: { email: a.email } });
    assert.equal(r.status, 204);
    // Wait until the worker has tried and failed at least once.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const rows = await s.deps.db.outboxEmail.findMany({ where: { accountId: a.id } });
      if (rows.length === 2 && rows.every((x) => x.attempts >= 1 && x.lastError)) break;
      assert.ok(Date.now() < deadline, `outbox rows not retried: ${JSON.stringify(rows.map((x) => [x.kind, x.attempts]))}`);
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.equal(s.smtp.to(a.email).length, 0);
  } finally {
    s.smtp.failing = false;
  }
  await s.smtp.waitFor(a.email, 'verify-email', 1, 15_000);
  await s.smtp.waitFor(a.email, 'reset-password', 1, 15_000);
  // The worker deletes a row right after SMTP accepted it.
  const until = Date.now() + 5000;
  while ((await s.deps.db.outboxEmail.count({ where: { accountId: a.id } })) > 0) {
    assert.ok(Date.now() < until, 'delivered rows leave the outbox');
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.equal(s.smtp.to(a.email, 'verify-email').length, 1, 'delivered once, not once per attempt');
});

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((res) => srv.listen(0, '127.0.0.1', res));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((res) => srv.close(() => res()));
  return port;
}

test('with SMTP_URL pointing at a closed port, signup succeeds and the mail is sent once a server listens there', async () => {
  const port = await freePort();
  // On a shared database any instance's worker may deliver any row: pause the other worker so
  // that only the instance whose SMTP is down handles this mail.
  await s.deps.mailWorker.stop();
  const down = await startTestServer({ env: { SMTP_URL: `smtp://127.0.0.1:${port}` } });
  let late: TestSmtp | null = null;
  try {
    const a = await signup(down);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const row = await down.deps.db.outboxEmail.findFirst({ where: { accountId: a.id } });
      if (row && row.attempts >= 1) break;
      assert.ok(Date.now() < deadline, 'the worker did not try to deliver');
      await new Promise((res) => setTimeout(res, 100));
    }
    // SMTP comes back on the port the service was told about.
    late = await TestSmtp.start(port);
    const held = await late.waitFor(a.email, 'verify-email', 1, 20_000);
    assert.equal(held.kind, 'verify-email');
  } finally {
    await down.close();
    await late?.close();
    s.deps.mailWorker.start();
  }
});
