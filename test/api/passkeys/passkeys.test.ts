// Passkeys over HTTP (API.md section 8) with the software authenticator, on REST and GraphQL:
// registration, list, rename, delete, the last-method rule, username-less sign-in, counter
// regressions, challenges that work once and expire, wrong origin or RP id, another account's
// passkey. The RP comes from APP_URL's defaults (rp id = its host name, origin = its origin).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resetLimit } from '../../../src/domain/limits/rate-limit.js';
import { networkOf } from '../../../src/domain/network.js';
import { LIMITS_PASSKEY_OPTIONS_PER_NETWORK } from '../../../src/domain/passkeys/limits.js';
import { SESSION_TOKEN, signedIn, type SignedIn } from '../../support/accounts.js';
import { gql, gqlCode } from '../../support/graphql.js';
import { sessionCookie } from '../../support/http.js';
import { assertProblem } from '../../support/problem.js';
import { useServer } from '../../support/server.js';
import { FLAGS, SoftwareAuthenticator, type CeremonyOverrides } from '../../support/webauthn-authenticator.js';

const APP_URL = 'https://app.example.test';
const RP_ID = 'app.example.test';
const s = useServer({ env: { APP_URL } });

type Auth = { bearer: string };
const as = (u: SignedIn): Auth => ({ bearer: u.token });

const registrationOptions = (auth: Auth) => s.request('/api/account/passkeys/options', { method: 'POST', ...auth });
const addPasskey = (auth: Auth, body: unknown) => s.request('/api/account/passkeys', { method: 'POST', ...auth, body });
const listPasskeys = (auth: Auth) => s.request('/api/account/passkeys', auth);
const loginOptions = () => s.request('/auth/passkey/options', { method: 'POST' });
const passkeyLogin = (body: unknown) => s.request('/auth/passkey/login', { method: 'POST', body });

/** Registers a passkey for the account through the full ceremony; returns the new passkey's JSON. */
async function register(auth: Auth, authenticator: SoftwareAuthenticator, name?: string, o: CeremonyOverrides = {}) {
  const options = await registrationOptions(auth);
  assert.equal(options.status, 200, options.text);
  const response = authenticator.register(options.json, o);
  const r = await addPasskey(auth, name === undefined ? { response } : { response, name });
  assert.equal(r.status, 201, r.text);
  return r.json as { id: string; name: string; created_at: string; last_used_at: string | null };
}

async function signInWith(authenticator: SoftwareAuthenticator, o: CeremonyOverrides = {}) {
  const options = await loginOptions();
  assert.equal(options.status, 200, options.text);
  return passkeyLogin({ challenge_id: options.json.challenge_id, response: authenticator.authenticate(options.json.options, o) });
}

const me = (bearer: string) => s.request('/api/account', { bearer });

test('registration options: the account id as user handle, UV and a discoverable credential required, existing credentials excluded', async () => {
  assertProblem(await s.request('/api/account/passkeys/options', { method: 'POST' }), 401, 'UNAUTHENTICATED');
  const u = await signedIn(s, { verified: true });
  const first = await registrationOptions(as(u));
  assert.equal(first.status, 200);
  const o = first.json;
  assert.equal(o.rp.id, RP_ID);
  assert.equal(o.rp.name, 'Tunnel Service');
  assert.equal(Buffer.from(o.user.id, 'base64url').toString('utf8'), u.id);
  assert.equal(o.user.name, u.email);
  assert.equal(o.attestation, 'none');
  assert.equal(o.authenticatorSelection.userVerification, 'required');
  assert.equal(o.authenticatorSelection.residentKey, 'required');
  assert.match(o.challenge, /^[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(o.excludeCredentials, []);
  assert.ok(o.pubKeyCredParams.some((p: { alg: number }) => p.alg === -7), 'ES256 offered');

  const authenticator = new SoftwareAuthenticator(APP_URL);
  await register(as(u), authenticator);
  const again = await registrationOptions(as(u));
  assert.deepEqual(
    again.json.excludeCredentials.map((c: { id: string }) => c.id),
    [authenticator.credentials[0]!.id.toString('base64url')],
  );
  // The authenticator refuses to register twice, as a real one does.
  assert.throws(() => authenticator.register(again.json), { name: 'InvalidStateError' });
});

test('adding a passkey stores key, counter, transports and backup flags, names it, and sends the passkey-added notice', async () => {
  const u = await signedIn(s, { verified: true });
  const authenticator = new SoftwareAuthenticator(APP_URL);
  const added = await register(as(u), authenticator, undefined, { flags: FLAGS.UP | FLAGS.UV | FLAGS.AT | FLAGS.BE | FLAGS.BS, counter: 7 });
  assert.match(added.id, /^[0-9a-f-]{36}$/);
  const today = s.clock.now();
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][today.getUTCMonth()];
  assert.equal(added.name, `Passkey added ${today.getUTCDate()} ${month} ${today.getUTCFullYear()}`, 'the day as the console writes dates');
  assert.ok(!Number.isNaN(Date.parse(added.created_at)));
  assert.equal(added.last_used_at, null);

  const row = await s.deps.db.passkey.findUniqueOrThrow({ where: { id: added.id } });
  assert.equal(row.accountId, u.id);
  assert.equal(row.credentialId, authenticator.credentials[0]!.id.toString('base64url'));
  assert.ok(row.publicKey.length > 60, 'COSE public key stored');
  assert.equal(row.counter, 7n);
  assert.deepEqual(row.transports, ['internal']);
  assert.equal(row.backupEligible, true);
  assert.equal(row.backedUp, true);

  const mail = await s.smtp.waitFor(u.email, 'passkey-added');
  assert.match(mail.subject, /passkey was added/i);
  assert.match(mail.raw, /Passkey added \d{1,2} [A-Z][a-z]{2} \d{4}/);
  assert.equal(mail.token, null, 'a notice carries no credential');

  const named = await register(as(u), new SoftwareAuthenticator(APP_URL), '  Work laptop  ');
  assert.equal(named.name, 'Work laptop');
});

test('registration: a bad name or body is 400, and a challenge works once, for this session, for 5 minutes', async () => {
  const u = await signedIn(s, { verified: true });
  const authenticator = new SoftwareAuthenticator(APP_URL);
  assertProblem(await addPasskey(as(u), { response: 'nope' }), 400, 'BAD_REQUEST');
  assertProblem(await addPasskey(as(u), {}), 400, 'BAD_REQUEST');

  // No ceremony started: 400.
  const orphan = authenticator.register((await registrationOptions(as(await signedIn(s, { verified: true })))).json);
  assertProblem(await addPasskey(as(u), { response: orphan }), 400, 'BAD_REQUEST');

  const options = (await registrationOptions(as(u))).json;
  const response = new SoftwareAuthenticator(APP_URL).register(options);
  assertProblem(await addPasskey(as(u), { response, name: 'x'.repeat(65) }), 400, 'BAD_REQUEST', 'name too long');
  // The name is checked before the challenge is taken: the ceremony still completes.
  assert.equal((await addPasskey(as(u), { response, name: 'Phone' })).status, 201);
  assertProblem(await addPasskey(as(u), { response, name: 'Phone again' }), 400, 'BAD_REQUEST', 'challenge reused');

  // Another session of the same account has no ceremony of its own.
  const other = await s.request('/auth/login', { method: 'POST', body: { email: u.email, password: u.password } });
  const fresh = new SoftwareAuthenticator(APP_URL).register((await registrationOptions(as(u))).json);
  assertProblem(await addPasskey({ bearer: other.json.token }, { response: fresh }), 400, 'BAD_REQUEST', 'other session');

  const late = new SoftwareAuthenticator(APP_URL).register((await registrationOptions(as(u))).json);
  s.clock.advance(5 * 60_000 + 1000);
  assertProblem(await addPasskey(as(u), { response: late }), 400, 'BAD_REQUEST', 'expired');
  assert.equal(await s.deps.db.passkey.count({ where: { accountId: u.id } }), 1);
});

test('registration fails verification for another origin, another RP id, no user verification or a tampered challenge', async () => {
  const u = await signedIn(s, { verified: true });
  const cases: [string, CeremonyOverrides][] = [
    ['origin', { origin: 'https://evil.example.test' }],
    ['rp id', { rpId: 'evil.example.test' }],
    ['no UV', { flags: FLAGS.UP | FLAGS.AT }],
    ['challenge', { challenge: Buffer.alloc(32, 1).toString('base64url') }],
  ];
  for (const [what, o] of cases) {
    const response = new SoftwareAuthenticator(APP_URL).register((await registrationOptions(as(u))).json, o);
    const r = await addPasskey(as(u), { response });
    assertProblem(r, 400, 'BAD_REQUEST', what);
    assert.match(r.json.detail, /could not be verified/);
  }
  assert.equal(await s.deps.db.passkey.count({ where: { accountId: u.id } }), 0);
});

test('list, rename and delete on REST and GraphQL; another account\'s passkey is 404', async () => {
  const u = await signedIn(s, { verified: true });
  const stranger = await signedIn(s, { verified: true });
  const first = await register(as(u), new SoftwareAuthenticator(APP_URL), 'First');
  const second = await register(as(u), new SoftwareAuthenticator(APP_URL), 'Second');
  const theirs = await register(as(stranger), new SoftwareAuthenticator(APP_URL), 'Theirs');

  const list = await listPasskeys(as(u));
  assert.equal(list.status, 200);
  assert.deepEqual(list.json.passkeys.map((p: { name: string }) => p.name), ['First', 'Second']);
  assert.deepEqual(Object.keys(list.json.passkeys[0]).sort(), ['backed_up', 'backup_eligible', 'created_at', 'id', 'last_used_at', 'name']);
  assertProblem(await s.request('/api/account/passkeys'), 401, 'UNAUTHENTICATED');
  const viaGql = await gql(s, '{ me { passkeys { id name createdAt lastUsedAt } } }', {}, as(u));
  assert.deepEqual(viaGql.json.data.me.passkeys.map((p: { id: string }) => p.id), [first.id, second.id]);

  const renamed = await s.request(`/api/account/passkeys/${first.id}`, { method: 'PATCH', ...as(u), body: { name: 'Laptop' } });
  assert.equal(renamed.status, 200);
  assert.equal(renamed.json.name, 'Laptop');
  assert.equal(renamed.json.id, first.id);
  assertProblem(await s.request(`/api/account/passkeys/${first.id}`, { method: 'PATCH', ...as(u), body: { name: ' ' } }), 400, 'BAD_REQUEST');
  assertProblem(await s.request(`/api/account/passkeys/${first.id}`, { method: 'PATCH', ...as(u), body: { name: 'a\nb' } }), 400, 'BAD_REQUEST');
  assertProblem(await s.request(`/api/account/passkeys/${theirs.id}`, { method: 'PATCH', ...as(u), body: { name: 'Mine now' } }), 404, 'NOT_FOUND');
  assertProblem(await s.request('/api/account/passkeys/not-an-id', { method: 'PATCH', ...as(u), body: { name: 'x' } }), 404, 'NOT_FOUND');
  const gqlRename = await gql(s, 'mutation ($id: ID!) { renamePasskey(id: $id, name: "Desk") { name } }', { id: second.id }, as(u));
  assert.equal(gqlRename.json.data.renamePasskey.name, 'Desk');
  assert.equal(gqlCode(await gql(s, 'mutation ($id: ID!) { renamePasskey(id: $id, name: "x") { name } }', { id: theirs.id }, as(u))), 'NOT_FOUND');

  assertProblem(await s.request(`/api/account/passkeys/${theirs.id}`, { method: 'DELETE', ...as(u) }), 404, 'NOT_FOUND');
  assert.equal((await s.deps.db.passkey.findUnique({ where: { id: theirs.id } }))?.name, 'Theirs', 'untouched');
  assert.equal((await s.request(`/api/account/passkeys/${first.id}`, { method: 'DELETE', ...as(u) })).status, 204);
  assertProblem(await s.request(`/api/account/passkeys/${first.id}`, { method: 'DELETE', ...as(u) }), 404, 'NOT_FOUND');
  const gqlDelete = await gql(s, 'mutation ($id: ID!) { deletePasskey(id: $id) }', { id: second.id }, as(u));
  assert.equal(gqlDelete.json.data.deletePasskey, true);
  assert.deepEqual((await listPasskeys(as(u))).json.passkeys, []);
});

test('GET /api/account counts the passkeys (mfa.passkeys), fresh after adding and removing one', async () => {
  const u = await signedIn(s, { verified: true });
  assert.equal((await me(u.token)).json.mfa.passkeys, 0);
  const p = await register(as(u), new SoftwareAuthenticator(APP_URL));
  assert.equal((await me(u.token)).json.mfa.passkeys, 1);
  assert.equal((await s.request(`/api/account/passkeys/${p.id}`, { method: 'DELETE', ...as(u) })).status, 204);
  assert.equal((await me(u.token)).json.mfa.passkeys, 0);
});

test('the last-method rule counts passkeys: the only passkey of a password-less account stays, and a passkey lets the last provider go', async () => {
  const u = await signedIn(s, { verified: true });
  const p = await register(as(u), new SoftwareAuthenticator(APP_URL));
  // A password and a passkey: either may go, not both.
  await s.deps.db.account.update({ where: { id: u.id }, data: { passwordHash: null } });
  const last = await s.request(`/api/account/passkeys/${p.id}`, { method: 'DELETE', ...as(u) });
  assertProblem(last, 400, 'BAD_REQUEST');
  assert.match(last.json.detail, /only way to sign in/);
  assert.equal(gqlCode(await gql(s, 'mutation ($id: ID!) { deletePasskey(id: $id) }', { id: p.id }, as(u))), 'BAD_REQUEST');

  // With a linked provider too, the provider can be unlinked (the passkey remains)...
  await s.deps.db.linkedIdentity.create({ data: { accountId: u.id, provider: 'github', providerUserId: `gh-${u.id}`, email: u.email } });
  assert.equal((await s.request('/api/account/sso/github', { method: 'DELETE', ...as(u) })).status, 204);
  // ... and then the passkey is the last method again.
  assertProblem(await s.request(`/api/account/passkeys/${p.id}`, { method: 'DELETE', ...as(u) }), 400, 'BAD_REQUEST');
  // Linked again: now the passkey may go, and then the provider is the last method.
  await s.deps.db.linkedIdentity.create({ data: { accountId: u.id, provider: 'github', providerUserId: `gh-${u.id}`, email: u.email } });
  assert.equal((await s.request(`/api/account/passkeys/${p.id}`, { method: 'DELETE', ...as(u) })).status, 204);
  assertProblem(await s.request('/api/account/sso/github', { method: 'DELETE', ...as(u) }), 400, 'BAD_REQUEST');
});

test('unlinking the last provider and deleting the last passkey at once: one of them is refused', async () => {
  for (let round = 0; round < 3; round++) {
    const u = await signedIn(s, { verified: true });
    const p = await register(as(u), new SoftwareAuthenticator(APP_URL));
    await s.deps.db.account.update({ where: { id: u.id }, data: { passwordHash: null } });
    await s.deps.db.linkedIdentity.create({ data: { accountId: u.id, provider: 'google', providerUserId: `g-${u.id}`, email: u.email } });
    const [unlink, del] = await Promise.all([
      s.request('/api/account/sso/google', { method: 'DELETE', ...as(u) }),
      s.request(`/api/account/passkeys/${p.id}`, { method: 'DELETE', ...as(u) }),
    ]);
    assert.deepEqual([unlink.status, del.status].sort(), [204, 400], `round ${round}`);
    const left = (await s.deps.db.passkey.count({ where: { accountId: u.id } })) + (await s.deps.db.linkedIdentity.count({ where: { accountId: u.id } }));
    assert.equal(left, 1, 'one way to sign in remains');
  }
});

test('deleting the account removes its passkeys', async () => {
  const u = await signedIn(s, { verified: true });
  await register(as(u), new SoftwareAuthenticator(APP_URL));
  const r = await s.request('/api/account', { method: 'DELETE', ...as(u), body: { email: u.email, password: u.password } });
  assert.equal(r.status, 204, r.text);
  assert.equal(await s.deps.db.passkey.count({ where: { accountId: u.id } }), 0);
});

test('passkey sign-in: username-less options, a session exactly like a login (token, cookie), method passkey, last used and counter updated', async () => {
  const u = await signedIn(s, { verified: true });
  const authenticator = new SoftwareAuthenticator(APP_URL);
  const added = await register(as(u), authenticator);

  const options = await loginOptions();
  assert.equal(options.status, 200);
  assert.match(options.json.challenge_id, /^[a-z2-7]{32}$/);
  assert.equal(options.json.options.rpId, RP_ID);
  assert.equal(options.json.options.userVerification, 'required');
  assert.deepEqual(options.json.options.allowCredentials ?? [], [], 'discoverable: no credential list');

  s.clock.advance(60_000);
  const r = await passkeyLogin({ challenge_id: options.json.challenge_id, response: authenticator.authenticate(options.json.options) });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(Object.keys(r.json).sort(), ['email_verified', 'expires_at', 'token']);
  assert.match(r.json.token, SESSION_TOKEN);
  assert.equal(r.json.email_verified, true);
  assert.equal(sessionCookie(r), r.json.token);
  assert.equal((await me(r.json.token)).json.id, u.id);
  const session = await s.deps.db.session.findFirstOrThrow({ where: { accountId: u.id }, orderBy: { createdAt: 'desc' } });
  assert.equal(session.method, 'passkey');
  assert.equal(session.secondStep, false);

  const row = await s.deps.db.passkey.findUniqueOrThrow({ where: { id: added.id } });
  assert.equal(row.counter, 1n);
  assert.ok(row.lastUsedAt, 'last used recorded');
  assert.ok(Math.abs(row.lastUsedAt.getTime() - s.clock.now().getTime()) < 5000, 'at the (moved) clock time');
  assert.ok(row.lastUsedAt.getTime() >= Date.parse(added.created_at) + 60_000);
  const listed = (await listPasskeys(as(u))).json.passkeys[0];
  assert.equal(listed.last_used_at, row.lastUsedAt.toISOString());

  // A second sign-in moves the counter on.
  assert.equal((await signInWith(authenticator)).status, 200);
  assert.equal((await s.deps.db.passkey.findUniqueOrThrow({ where: { id: added.id } })).counter, 2n);
});

test('passkey sign-in over GraphQL answers like REST and sets the cookie', async () => {
  const u = await signedIn(s, { verified: true });
  const authenticator = new SoftwareAuthenticator(APP_URL);
  await register(as(u), authenticator);
  const start = await gql(s, 'mutation { passkeyLoginOptions { challengeId options } }');
  const { challengeId, options } = start.json.data.passkeyLoginOptions;
  const r = await gql(s, 'mutation ($c: String!, $r: JSONObject!) { passkeyLogin(challengeId: $c, response: $r) { token emailVerified expiresAt } }', {
    c: challengeId,
    r: authenticator.authenticate(options),
  });
  assert.equal(r.status, 200);
  assert.equal(sessionCookie(r), r.json.data.passkeyLogin.token);
  assert.equal((await me(r.json.data.passkeyLogin.token)).json.id, u.id);
  // Registration over GraphQL too.
  const regOptions = await gql(s, 'mutation { passkeyRegistrationOptions }', {}, as(u));
  const response = new SoftwareAuthenticator(APP_URL).register(regOptions.json.data.passkeyRegistrationOptions);
  const added = await gql(s, 'mutation ($r: JSONObject!) { addPasskey(response: $r, name: "Via GraphQL") { id name lastUsedAt } }', { r: response }, as(u));
  assert.equal(added.json.data.addPasskey.name, 'Via GraphQL');
  assert.equal(gqlCode(await gql(s, 'mutation { passkeyRegistrationOptions }')), 'UNAUTHENTICATED');
});

test('a passkey sign-in satisfies two-step sign-in: no code is asked', async () => {
  const u = await signedIn(s, { verified: true });
  const authenticator = new SoftwareAuthenticator(APP_URL);
  await register(as(u), authenticator);
  await s.deps.db.totpCredential.create({ data: { accountId: u.id, secret: 'sealed-secret-not-read-here', enabledAt: s.clock.now() } });
  const r = await signInWith(authenticator);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.mfa_required, undefined);
  assert.equal((await me(r.json.token)).json.id, u.id);
});

test('sign-in challenges work once, expire after 5 minutes, and unknown ones are 400', async () => {
  const u = await signedIn(s, { verified: true });
  const authenticator = new SoftwareAuthenticator(APP_URL);
  await register(as(u), authenticator);
  const options = (await loginOptions()).json;
  const first = await passkeyLogin({ challenge_id: options.challenge_id, response: authenticator.authenticate(options.options) });
  assert.equal(first.status, 200);
  const replay = await passkeyLogin({ challenge_id: options.challenge_id, response: authenticator.authenticate(options.options) });
  assertProblem(replay, 400, 'BAD_REQUEST', 'reused');
  assert.equal(sessionCookie(replay), null);

  const late = (await loginOptions()).json;
  s.clock.advance(5 * 60_000 + 1000);
  assertProblem(await passkeyLogin({ challenge_id: late.challenge_id, response: authenticator.authenticate(late.options) }), 400, 'BAD_REQUEST', 'expired');
  assertProblem(await passkeyLogin({ challenge_id: 'a'.repeat(32), response: authenticator.authenticate(late.options) }), 400, 'BAD_REQUEST', 'unknown');
  assertProblem(await passkeyLogin({ challenge_id: 'x', response: {} }), 400, 'BAD_REQUEST', 'malformed');
  assertProblem(await passkeyLogin({ challenge_id: late.challenge_id }), 400, 'BAD_REQUEST', 'no response');
});

test('a counter that does not move forward is refused (401), and the stored counter stays', async () => {
  const u = await signedIn(s, { verified: true });
  const authenticator = new SoftwareAuthenticator(APP_URL);
  const added = await register(as(u), authenticator);
  assert.equal((await signInWith(authenticator, { counter: 10 })).status, 200);
  const same = await signInWith(authenticator, { counter: 10 });
  assertProblem(same, 401, 'UNAUTHENTICATED', 'same counter');
  assert.match(same.json.detail, /counter/);
  assertProblem(await signInWith(authenticator, { counter: 4 }), 401, 'UNAUTHENTICATED', 'lower counter');
  assert.equal((await s.deps.db.passkey.findUniqueOrThrow({ where: { id: added.id } })).counter, 10n);
  assert.equal((await signInWith(authenticator, { counter: 11 })).status, 200);
});

test('two sign-ins presenting the same counter at once: one session, the other 401 (compare-and-set on the counter)', async () => {
  const u = await signedIn(s, { verified: true });
  const authenticator = new SoftwareAuthenticator(APP_URL);
  await register(as(u), authenticator);
  for (let counter = 1; counter <= 3; counter++) {
    const [a, b] = [(await loginOptions()).json, (await loginOptions()).json];
    const replies = await Promise.all(
      [a, b].map((o) => passkeyLogin({ challenge_id: o.challenge_id, response: authenticator.authenticate(o.options, { counter }) })),
    );
    assert.deepEqual(replies.map((r) => r.status).sort(), [200, 401], `counter ${counter}`);
  }
});

test('sign-in fails (401) for an unknown credential, another origin or RP id, no user verification, or a user handle of another account', async () => {
  const u = await signedIn(s, { verified: true });
  const stranger = await signedIn(s, { verified: true });
  const authenticator = new SoftwareAuthenticator(APP_URL);
  await register(as(u), authenticator);
  const unknown = new SoftwareAuthenticator(APP_URL);
  unknown.register({ challenge: 'x', rp: { id: RP_ID, name: 'x' }, user: { id: Buffer.from(u.id).toString('base64url'), name: u.email } });
  const cases: [string, SoftwareAuthenticator, CeremonyOverrides][] = [
    ['unknown credential', unknown, {}],
    ['origin', authenticator, { origin: 'https://evil.example.test' }],
    ['rp id', authenticator, { rpId: 'evil.example.test' }],
    ['no UV', authenticator, { flags: FLAGS.UP }],
    ['user handle', authenticator, { userHandle: Buffer.from(stranger.id).toString('base64url') }],
  ];
  for (const [what, a, o] of cases) {
    const r = await signInWith(a, o);
    assertProblem(r, 401, 'UNAUTHENTICATED', what);
    assert.equal(sessionCookie(r), null);
  }
  // Without a user handle (allowed by the spec for a non-discoverable answer) the key decides.
  assert.equal((await signInWith(authenticator, { userHandle: null })).status, 200);
});

test('/passkeys is a first-party page with a strict CSP, and its script bundles @simplewebauthn/browser', async () => {
  const page = await s.request('/passkeys');
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-security-policy']), /default-src 'none'; script-src 'self'/);
  assert.match(page.text, /<script src="\/assets\/passkeys.js"><\/script>/);
  assert.doesNotMatch(page.text, /https?:\/\//, 'no third-party resource');
  const script = await s.request('/assets/passkeys.js');
  assert.equal(script.status, 200);
  assert.match(String(script.headers['content-type']), /^text\/javascript/);
  assert.match(script.text, /navigator\.credentials/);
  assert.match(script.text, /\/auth\/passkey\/options/);
  assert.doesNotMatch(script.text, /\bimport\s*[({]|require\(/, 'one self-contained file');
});

test('the security activity records passkey_added, sign_in by passkey, sign_in_failed and passkey_removed', async () => {
  const u = await signedIn(s, { verified: true });
  const authenticator = new SoftwareAuthenticator(APP_URL);
  const added = await register(as(u), authenticator, 'Activity key');
  await register(as(u), new SoftwareAuthenticator(APP_URL), 'Spare');
  assert.equal((await signInWith(authenticator)).status, 200);
  assert.equal((await signInWith(authenticator, { origin: 'https://evil.example.test' })).status, 401);
  assert.equal((await s.request(`/api/account/passkeys/${added.id}`, { method: 'DELETE', ...as(u) })).status, 204);
  const events = (await s.request('/api/account/activity', as(u))).json.events as { type: string; detail: Record<string, unknown> }[];
  const ofType = (t: string) => events.filter((e) => e.type === t);
  assert.deepEqual(ofType('passkey_added').map((e) => e.detail.name).sort(), ['Activity key', 'Spare']);
  assert.deepEqual(ofType('passkey_removed').map((e) => e.detail), [{ passkey_id: added.id, name: 'Activity key' }]);
  assert.deepEqual(ofType('sign_in')[0]?.detail, { method: 'passkey', second_step: false });
  assert.deepEqual(ofType('sign_in_failed').map((e) => e.detail), [{ method: 'passkey', passkey_id: added.id }]);
});

test('an account holds at most 20 passkeys (409)', async () => {
  const u = await signedIn(s, { verified: true });
  await s.deps.db.passkey.createMany({
    data: Array.from({ length: 20 }, (_, i) => ({
      accountId: u.id,
      credentialId: `cap-${u.id}-${i}`,
      publicKey: Buffer.alloc(77),
      aaguid: '00000000-0000-0000-0000-000000000000',
      backupEligible: false,
      backedUp: false,
      name: `Key ${i}`,
    })),
  });
  assertProblem(await registrationOptions(as(u)), 409, 'CONFLICT');
});

// Last in the file: it spends the loopback network's budget of sign-in options.
test('sign-in options are limited per client network (429 with Retry-After once the budget is spent)', async () => {
  try {
    let status = 200;
    for (let i = 0; i < LIMITS_PASSKEY_OPTIONS_PER_NETWORK.max + 1 && status === 200; i++) status = (await loginOptions()).status;
    assertProblem(await loginOptions(), 429, 'RATE_LIMITED');
  } finally {
    // A shared Redis keeps the window: a second run of this file must not start limited.
    for (const ip of ['127.0.0.1', '::1']) await resetLimit(s.deps.cache, LIMITS_PASSKEY_OPTIONS_PER_NETWORK, networkOf(ip) ?? ip);
  }
});
