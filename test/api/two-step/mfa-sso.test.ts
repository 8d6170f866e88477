// Two-step sign-in behind SSO (API.md section 7): a provider sign-in of an account with two-step
// on sets no session and redirects to APP_URL/mfa?token=…; the /mfa page completes it; a
// pending-link confirmation answers like login and binds the identity only once the second step
// has passed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASSWORD, signedIn } from '../../support/accounts.js';
import { sessionCookie } from '../../support/http.js';
import { assertProblem } from '../../support/problem.js';
import { uniqueEmail, useServer } from '../../support/server.js';
import { useFakeProviders } from '../../support/fake-providers.js';
import { APP_URL, accountOf, appRedirect, fakeUser, roundTrip } from '../../support/sso-browser.js';
import { enableTwoStep, freshCode } from '../../support/totp.js';

const fake = useFakeProviders();
const s = useServer(() => ({ env: { ...fake.env(), APP_URL } }));

const verify = (mfa_token: string, code: string) => s.request('/auth/mfa/verify', { method: 'POST', body: { mfa_token, code } });

test('SSO sign-in of an account with two-step on redirects to APP_URL/mfa?token=… with no session; the second step signs in', async () => {
  const email = uniqueEmail('mfa.sso');
  const user = fakeUser(email);
  // A Google account (no password) that turns two-step on: setup needs no password then.
  const first = await roundTrip(s, fake, 'google', user);
  const session = first.browser.session!;
  const setup = await s.request('/api/account/mfa/totp/setup', { method: 'POST', cookie: `session=${session}`, body: {} });
  assert.equal(setup.status, 200, setup.text);
  const { secret } = setup.json;
  const confirm = await s.request('/api/account/mfa/totp/confirm', { method: 'POST', bearer: session, body: { code: freshCode(s, secret) } });
  assert.equal(confirm.status, 200, confirm.text);

  const sessionsBefore = await s.deps.db.session.count({ where: { account: { email } } });
  const again = await roundTrip(s, fake, 'google', user);
  const { path, query } = appRedirect(again.callback);
  assert.equal(path, '/mfa');
  const token = query.get('token')!;
  assert.match(token, /^[a-z2-7]{32}$/);
  assert.equal(sessionCookie(again.callback), null);
  assert.equal(again.browser.session, undefined);
  assert.equal(await s.deps.db.session.count({ where: { account: { email } } }), sessionsBefore, 'no session before the second step');

  assertProblem(await verify(token, '000000'), 401, 'UNAUTHENTICATED');
  const ok = await verify(token, freshCode(s, secret));
  assert.equal(ok.status, 200, ok.text);
  assert.equal(sessionCookie(ok), ok.json.token);
  const me = await accountOf(s, { bearer: ok.json.token });
  assert.equal(me.json.email, email);
  const list = await s.request('/api/sessions', { bearer: ok.json.token });
  assert.deepEqual(
    list.json.sessions.map((x: { method: string; second_step: boolean; current: boolean }) => [x.method, x.second_step, x.current]).sort(),
    [
      ['google', false, false],
      ['google', true, true],
    ],
  );
});

test('an account without a password (SSO only) makes new recovery codes and turns two-step off with a code alone', async () => {
  const email = uniqueEmail('mfa.sso.off');
  const { browser } = await roundTrip(s, fake, 'google', fakeUser(email));
  const session = browser.session!;
  const post = (path: string, body: unknown, method = 'POST') => s.request(path, { method, bearer: session, body });
  const setup = await post('/api/account/mfa/totp/setup', {});
  assert.equal(setup.status, 200, setup.text);
  const { secret } = setup.json;
  const confirm = await post('/api/account/mfa/totp/confirm', { code: freshCode(s, secret) });
  assert.equal(confirm.status, 200, confirm.text);

  assertProblem(await post('/api/account/mfa/recovery-codes', {}), 400, 'BAD_REQUEST', 'the session alone makes no codes');
  const fresh = await post('/api/account/mfa/recovery-codes', { code: freshCode(s, secret) });
  assert.equal(fresh.status, 200, fresh.text);
  assert.equal(fresh.json.recovery_codes.length, 10);
  const wrong = String((Number(freshCode(s, secret)) + 1) % 1_000_000).padStart(6, '0');
  assertProblem(await post('/api/account/mfa/totp', { code: wrong }, 'DELETE'), 400, 'BAD_REQUEST', 'a wrong code');
  assertProblem(await post('/api/account/mfa/totp', { code: confirm.json.recovery_codes[0] }, 'DELETE'), 400, 'BAD_REQUEST', 'a voided code');
  assert.equal((await accountOf(s, { bearer: session })).json.mfa.totp, true);
  const off = await post('/api/account/mfa/totp', { code: fresh.json.recovery_codes[0] }, 'DELETE');
  assert.equal(off.status, 204, off.text);
  assert.equal((await accountOf(s, { bearer: session })).json.mfa.totp, false);
  await s.smtp.waitFor(email, 'mfa-disabled');
});

test('GET /mfa is a page with a code form whose same-origin script posts JSON to /auth/mfa/verify', async () => {
  const r = await s.request('/mfa?token=abcdefghijklmnopqrstuvwxyz234567');
  assert.equal(r.status, 200);
  assert.match(String(r.headers['content-type']), /^text\/html/);
  assert.equal(r.headers['referrer-policy'], 'no-referrer');
  assert.match(r.text, /<form[\s\S]*name="code"[\s\S]*<\/form>/);
  assert.ok(!r.text.includes('abcdefghijklmnopqrstuvwxyz234567'), 'the token is not written into the page');
  const script = await s.request('/assets/link-pages.js');
  assert.match(script.text, /\/auth\/mfa\/verify/);
  assert.match(script.text, /mfa_token: token/);
  assert.match(script.text, /'content-type': 'application\/json'/);
});

test('confirm-link on an account with two-step on answers like login; the identity is bound only after the second step', async () => {
  const email = uniqueEmail('mfa.link');
  const a = await signedIn(s, { email, verified: true });
  const { secret } = await enableTwoStep(s, a);
  const user = fakeUser(email);
  const trip = await roundTrip(s, fake, 'github', user);
  const { path, query } = appRedirect(trip.callback);
  assert.equal(path, '/link-account');
  const confirm = await s.request('/auth/oauth/confirm-link', { method: 'POST', body: { token: query.get('token'), password: PASSWORD } });
  assert.equal(confirm.status, 200, confirm.text);
  assert.deepEqual(Object.keys(confirm.json).sort(), ['expires_at', 'mfa_required', 'mfa_token']);
  assert.equal(sessionCookie(confirm), null);
  assert.deepEqual((await accountOf(s, { bearer: a.token })).json.linked_providers, [], 'not bound yet');

  assertProblem(await verify(confirm.json.mfa_token, 'zzzz-zzzz-zzzz-zzzz'), 401, 'UNAUTHENTICATED');
  assert.deepEqual((await accountOf(s, { bearer: a.token })).json.linked_providers, [], 'a wrong code binds nothing');
  const ok = await verify(confirm.json.mfa_token, freshCode(s, secret));
  assert.equal(ok.status, 200, ok.text);
  const me = await accountOf(s, { bearer: ok.json.token });
  assert.deepEqual(me.json.linked_providers.map((p: { provider: string }) => p.provider), ['github']);
  await s.smtp.waitFor(email, 'provider-linked');
  const list = await s.request('/api/sessions', { bearer: ok.json.token });
  const current = list.json.sessions.find((x: { current: boolean }) => x.current);
  assert.deepEqual([current.method, current.second_step], ['github', true]);
  // The pending link is used up; the identity now signs in through the second step.
  const relink = await s.request('/auth/oauth/confirm-link', { method: 'POST', body: { token: query.get('token'), password: PASSWORD } });
  assertProblem(relink, 400, 'BAD_REQUEST');
  assert.equal(appRedirect((await roundTrip(s, fake, 'github', user)).callback).path, '/mfa');
});
