// The /mfa page in a real browser (headless Chromium, playwright-core): opened with the
// mfa_token an SSO sign-in redirects to, it takes a code, posts it as JSON to /auth/mfa/verify
// under the page's CSP and the cross-site write check, and the browser ends up signed in. A wrong
// code shows the API's detail and signs nothing in.
//
// The page's origin must be APP_URL (ALLOWED_ORIGINS), known before the server picks its port:
// the browser talks to a loopback forwarder whose port is chosen first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PASSWORD, signedIn } from '../../support/accounts.js';
import { pageProblems, useBrowser, useServerAtOrigin } from '../../support/browser.js';
import { enableTwoStep, freshCode } from '../../support/totp.js';

const { server: s, origin } = useServerAtOrigin();

const browser = useBrowser();

test('in Chromium, the /mfa page takes the code, signs the browser in, and shows a wrong code\'s detail', async () => {
  const a = await signedIn(s, { verified: true });
  const { secret } = await enableTwoStep(s, a);
  const login = await s.request('/auth/login', { method: 'POST', body: { email: a.email, password: PASSWORD } });
  const token: string = login.json.mfa_token;
  assert.match(token, /^[a-z2-7]{32}$/);

  const context = await browser().newContext();
  const page = await context.newPage();
  const problems = pageProblems(page);
  await page.goto(`${origin()}/mfa?token=${token}`);
  assert.equal(new URL(page.url()).search, '', 'the token is taken out of the address bar');

  await page.fill('input[name="code"]', 'zzzz-zzzz-zzzz-zzzz');
  await page.click('button[type="submit"]');
  await page.locator('#result.error').waitFor();
  assert.equal(await page.textContent('#result'), 'Incorrect code.');
  assert.equal((await context.cookies()).find((c) => c.name === 'session'), undefined);

  await page.fill('input[name="code"]', freshCode(s, secret));
  await page.click('button[type="submit"]');
  await page.locator('#result.ok').waitFor();
  assert.equal(await page.textContent('#result'), 'You are signed in.');
  const cookie = (await context.cookies()).find((c) => c.name === 'session');
  assert.ok(cookie, 'the browser holds the session cookie');
  assert.equal(cookie.httpOnly, true);
  const me = await s.request('/api/account', { cookie: `session=${cookie.value}` });
  assert.equal(me.status, 200);
  assert.equal(me.json.email, a.email);
  assert.deepEqual(problems, []);
  await context.close();
});
