// A real browser on the /passkeys page: headless Chromium (Debian's package, playwright-core)
// with a CDP virtual authenticator (CTAP2, internal transport, resident keys, user verification)
// signs in with the account password, registers a passkey, signs out, and signs in with the
// passkey alone, all at http://localhost:<port> against this server.
//
// The relying party's origin must be known before the server starts (APP_URL), and the test
// server picks its port when it listens; so the browser talks to a loopback forwarder whose port
// is chosen first and which passes bytes to the server once it is up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signup, verify } from '../../support/accounts.js';
import { ARTIFACTS, pageProblems, useBrowser, useServerAtOrigin } from '../../support/browser.js';

// Default RP: rp id `localhost`, origin http://localhost:<forwarder port>; cookie writes from it pass.
const { server: s, origin } = useServerAtOrigin();

const browser = useBrowser();

test('in Chromium with a virtual authenticator: sign in with the password, add a passkey, sign out, sign in with the passkey', async () => {
  const account = await signup(s);
  await verify(s, account);
  const context = await browser().newContext();
  const page = await context.newPage();
  const problems = pageProblems(page);

  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });

  const result = page.locator('#result');
  await page.goto(`${origin()}/passkeys`);
  await page.locator('#signed-out').waitFor({ state: 'visible' });

  // The password first (a passkey is added to a signed-in account).
  await page.fill('#email', account.email);
  await page.fill('#password', account.password);
  await page.click('#password-submit');
  await page.locator('#signed-in').waitFor({ state: 'visible' });
  assert.equal(await page.textContent('#who'), account.email);
  assert.equal(await page.locator('#list li').count(), 0);

  await page.fill('#new-name', 'Virtual laptop');
  await page.click('#add-submit');
  await page.locator('#list li').first().waitFor();
  assert.equal(await result.textContent(), 'Passkey "Virtual laptop" added.');
  assert.equal(await page.inputValue('#list li input'), 'Virtual laptop');

  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  assert.equal(credentials.length, 1);
  const [credential] = credentials;
  assert.equal(credential!.isResidentCredential, true, 'a discoverable credential (passkey)');
  assert.equal(credential!.rpId, 'localhost');
  assert.equal(Buffer.from(credential!.userHandle!, 'base64').toString('utf8'), account.id, 'user handle is the account id');
  const stored = await s.deps.db.passkey.findFirstOrThrow({ where: { accountId: account.id } });
  assert.equal(stored.credentialId, Buffer.from(credential!.credentialId, 'base64').toString('base64url'));

  await page.click('#sign-out');
  await page.locator('#signed-out').waitFor({ state: 'visible' });
  assert.equal((await context.cookies()).find((c) => c.name === 'session'), undefined, 'signed out');

  await page.click('#passkey-sign-in');
  await page.locator('#signed-in').waitFor({ state: 'visible' });
  assert.equal(await result.textContent(), 'Signed in with your passkey.');
  assert.equal(await page.textContent('#who'), account.email);
  assert.ok((await context.cookies()).find((c) => c.name === 'session' && c.httpOnly), 'session cookie set');
  await page.locator('#list li small', { hasNotText: 'last used never' }).waitFor();

  const session = await s.deps.db.session.findFirstOrThrow({ where: { accountId: account.id }, orderBy: { createdAt: 'desc' } });
  assert.equal(session.method, 'passkey');
  const used = await s.deps.db.passkey.findUniqueOrThrow({ where: { id: stored.id } });
  assert.ok(used.lastUsedAt, 'last used recorded');
  const after = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials[0]!;
  assert.equal(Number(used.counter), after.signCount, 'the server keeps the authenticator counter');

  await page.screenshot({ path: new URL('passkeys-signed-in.png', ARTIFACTS).pathname, fullPage: true });
  assert.deepEqual(problems, [], 'no script errors or CSP violations');
  await context.close();
});
