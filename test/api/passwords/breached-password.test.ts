// Breached passwords (API.md section 9) against a local fake of the range API: sign-up,
// change-password and reset-password refuse a breached password with the fixed detail; only the
// first 5 hex characters of the SHA-1 leave the process, with Add-Padding; padding entries do not
// count; a service that hangs or fails is waited for at most 2 s and the password is let through
// (logged without password material, counted on /metrics); `off` sends nothing.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { createBreachedPasswordCheck, type BreachCheckFailure } from '../../../src/domain/passwords/breached-password.js';
import { loadConfig } from '../../../src/infra/config.js';
import { PASSWORD, signedIn } from '../../support/accounts.js';
import { FakePwned, sha1Hex, useFakePwned } from '../../support/fake-pwned.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';

const DETAIL = 'This password has appeared in a data breach. Choose another one.';
const BREACHED = 'password123 breached';
const PADDING_ONLY = 'only in the padding 42';

const pwned = useFakePwned();
const s = useServer(() => ({ env: { PWNED_PASSWORDS_URL: pwned.url } }));

const signup = (password: string, email = uniqueEmail('breach')) => s.request('/auth/signup', { method: 'POST', body: { email, password } });

function assertRefused(r: Awaited<ReturnType<typeof signup>>, what: string): void {
  assertProblem(r, 400, 'BAD_REQUEST', what);
  assert.equal(r.json.detail, DETAIL);
}

async function failOpenCount(reason: BreachCheckFailure): Promise<number> {
  const text = (await s.request('/metrics')).text;
  const m = new RegExp(`^breached_password_check_failures_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

test('sign-up refuses a breached password (REST and GraphQL); only 5 hex characters and the padding header leave the process', async () => {
  pwned.add(BREACHED, 3861493);
  pwned.requests.length = 0;
  const email = uniqueEmail('breach.signup');
  assertRefused(await signup(BREACHED, email), 'REST');
  assert.equal(await s.deps.db.account.count({ where: { email } }), 0);
  const g = await gql(s, 'mutation ($e: String!, $p: String!) { signup(email: $e, password: $p) { id } }', { e: email, p: BREACHED });
  assert.equal(gqlCode(g), 'BAD_REQUEST');
  assert.equal(g.json.errors[0].message, DETAIL);

  const hash = sha1Hex(BREACHED);
  assert.equal(pwned.requests.length, 2);
  for (const req of pwned.requests) {
    assert.equal(req.method, 'GET');
    assert.equal(req.path, `/range/${hash.slice(0, 5)}`, 'exactly the first 5 hex characters, upper case');
    assert.match(req.path, /^\/range\/[0-9A-F]{5}$/);
    assert.equal(req.headers['add-padding'], 'true');
    const everything = JSON.stringify(req);
    assert.ok(!everything.includes(hash.slice(5, 15)) && !everything.toLowerCase().includes(hash.slice(5, 15).toLowerCase()), 'no more of the hash');
    assert.ok(!everything.includes(BREACHED), 'never the password');
  }
});

test('a password found only among the padding entries (count 0), or not at all, is accepted', async () => {
  pwned.add(PADDING_ONLY, 0);
  assert.equal((await signup(PADDING_ONLY)).status, 201);
  assert.equal((await signup('a fine unbreached passphrase')).status, 201);
});

test('change-password refuses a breached new password and keeps the old one', async () => {
  pwned.add(BREACHED);
  const a = await signedIn(s);
  const r = await s.request('/auth/change-password', { method: 'POST', bearer: a.token, body: { current_password: PASSWORD, new_password: BREACHED } });
  assertRefused(r, 'change-password');
  const login = await s.request('/auth/login', { method: 'POST', body: { email: a.email, password: PASSWORD } });
  assert.equal(login.status, 200, 'the old password still works');
  const ok = await s.request('/auth/change-password', { method: 'POST', bearer: a.token, body: { current_password: PASSWORD, new_password: 'another good passphrase' } });
  assert.equal(ok.status, 204);
});

test('reset-password refuses a breached password; the link stays usable for another one', async () => {
  pwned.add(BREACHED);
  const a = await signedIn(s);
  await s.request('/auth/forgot-password', { method: 'POST', body: { email: a.email } });
  const mail = await s.smtp.waitFor(a.email, 'reset-password');
  assertRefused(await s.request('/auth/reset-password', { method: 'POST', body: { token: mail.token, new_password: BREACHED } }), 'reset-password');
  const ok = await s.request('/auth/reset-password', { method: 'POST', body: { token: mail.token, new_password: 'reset to something new' } });
  assert.equal(ok.status, 204, ok.text);
});

test('a hanging range service is waited for at most ~2 s, then the sign-up goes through and the failure is counted', async () => {
  pwned.add(BREACHED);
  const before = await failOpenCount('timeout');
  pwned.mode = 'hang';
  try {
    const started = Date.now();
    const r = await signup(BREACHED);
    const elapsed = Date.now() - started;
    assert.equal(r.status, 201, 'fails open');
    assert.ok(elapsed >= 1_900 && elapsed < 3_500, `answered after ${elapsed} ms`);
  } finally {
    pwned.mode = 'answer';
  }
  assert.equal(await failOpenCount('timeout'), before + 1);
  pwned.mode = 503;
  try {
    const before503 = await failOpenCount('bad_status');
    assert.equal((await signup(BREACHED)).status, 201);
    assert.equal(await failOpenCount('bad_status'), before503 + 1);
  } finally {
    pwned.mode = 'answer';
  }
});

/** A logger whose lines the test reads. */
function capturedLogger(): { logger: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, stream), lines };
}

test('a range service that cannot be resolved fails open at once, logged with no password material', async () => {
  const { logger, lines } = capturedLogger();
  const failures: string[] = [];
  const check = createBreachedPasswordCheck({ url: 'http://pwned-passwords.invalid/range/', logger, onFailOpen: (r) => failures.push(r) });
  const started = Date.now();
  assert.equal(await check(BREACHED), false);
  assert.ok(Date.now() - started < 1_900, `took ${Date.now() - started} ms`);
  assert.deepEqual(failures, ['unreachable']);
  assert.equal(lines.length, 1);
  const hash = sha1Hex(BREACHED);
  assert.ok(!lines[0]!.includes(BREACHED) && !lines[0]!.includes(hash.slice(0, 5)) && !lines[0]!.toLowerCase().includes(hash.slice(0, 5).toLowerCase()));
  assert.match(lines[0]!, /failed open/);
});

test('PWNED_PASSWORDS_URL: off disables the check (nothing is sent); a bad value stops start-up naming it', async () => {
  assert.equal(loadConfig({ PWNED_PASSWORDS_URL: 'off' }).pwnedPasswordsUrl, null);
  assert.equal(loadConfig({}).pwnedPasswordsUrl, 'https://api.pwnedpasswords.com/range/');
  assert.throws(() => loadConfig({ PWNED_PASSWORDS_URL: 'ftp://x/' }), /PWNED_PASSWORDS_URL/);
  const fake = await FakePwned.start();
  try {
    fake.add(BREACHED);
    const off = createBreachedPasswordCheck({ url: null, logger: pino({ level: 'silent' }), onFailOpen: () => assert.fail('no failure when off') });
    assert.equal(await off(BREACHED), false);
    assert.equal(fake.requests.length, 0);
    const on = createBreachedPasswordCheck({ url: fake.url, logger: pino({ level: 'silent' }), onFailOpen: () => assert.fail('answered') });
    assert.equal(await on(BREACHED), true);
    assert.equal(fake.requests.length, 1);
  } finally {
    await fake.close();
  }
});
