// The SSO callback's decision (SPEC 5), as a pure function of what the database says: every
// combination of identity, email account, intent and viewer, and the rules that hold across them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideSsoOutcome, type SsoDecision, type SsoFacts } from '../../../src/domain/sso/sso-outcome.js';

const IDENTITY_OWNER = 'account-with-the-identity';
const EMAIL_OWNER = 'account-with-the-email';
const LINKER = 'account-that-started-the-link';

type EmailAccount = Extract<SsoFacts, { kind: 'sign-in' }>['emailAccount'];
const emailAccount = (hasPassword: boolean, hasProviderIdentity: boolean): EmailAccount => ({ id: EMAIL_OWNER, hasPassword, hasProviderIdentity });
const signIn = (identityAccountId: string | null, account: EmailAccount, emailVerified = true): SsoFacts => ({
  kind: 'sign-in',
  identityAccountId,
  emailVerified,
  emailAccount: account,
});

test('sign-in: an email the provider does not vouch for neither creates nor matches an account', () => {
  for (const account of [null, emailAccount(true, false), emailAccount(false, false)]) {
    assert.deepEqual(decideSsoOutcome(signIn(null, account, false)), { kind: 'refused', reason: 'unverified_email' });
  }
  // An identity linked already signs in to its account, whatever it says of its email now.
  assert.deepEqual(decideSsoOutcome(signIn(IDENTITY_OWNER, null, false)), { kind: 'sign-in', accountId: IDENTITY_OWNER });
});

test('sign-in: every combination of linked identity and account holding the email', () => {
  const cases: [string, SsoFacts, SsoDecision][] = [
    ['new identity, unknown email → sign-up', signIn(null, null), { kind: 'sign-up' }],
    ['new identity, email of a password account → pending link', signIn(null, emailAccount(true, false)), { kind: 'pending-link', accountId: EMAIL_OWNER }],
    ['new identity, email of a password account with another identity of the provider → refused', signIn(null, emailAccount(true, true)), { kind: 'refused', reason: 'provider_already_linked' }],
    ['new identity, email of a password-less account → refused, never merged', signIn(null, emailAccount(false, false)), { kind: 'refused', reason: 'use_existing_method' }],
    ['new identity, email of a password-less account with another identity of the provider → refused', signIn(null, emailAccount(false, true)), { kind: 'refused', reason: 'use_existing_method' }],
    ['linked identity, unknown email → sign in to its account', signIn(IDENTITY_OWNER, null), { kind: 'sign-in', accountId: IDENTITY_OWNER }],
    ['linked identity, email of another password account → sign in to the identity account', signIn(IDENTITY_OWNER, emailAccount(true, false)), { kind: 'sign-in', accountId: IDENTITY_OWNER }],
    ['linked identity, email of an account with the provider → sign in to the identity account', signIn(IDENTITY_OWNER, emailAccount(true, true)), { kind: 'sign-in', accountId: IDENTITY_OWNER }],
    ['linked identity, email of a password-less account → sign in to the identity account', signIn(IDENTITY_OWNER, emailAccount(false, false)), { kind: 'sign-in', accountId: IDENTITY_OWNER }],
    ['linked identity, email of a password-less account with the provider → sign in', signIn(IDENTITY_OWNER, emailAccount(false, true)), { kind: 'sign-in', accountId: IDENTITY_OWNER }],
    [
      'linked identity whose account holds the email → sign in to it',
      signIn(EMAIL_OWNER, { id: EMAIL_OWNER, hasPassword: true, hasProviderIdentity: true }),
      { kind: 'sign-in', accountId: EMAIL_OWNER },
    ],
  ];
  for (const [name, facts, expected] of cases) assert.deepEqual(decideSsoOutcome(facts), expected, name);
});

const link = (viewerAccountId: string | null, identityAccountId: string | null, accountHasProviderIdentity: boolean): SsoFacts => ({
  kind: 'link',
  accountId: LINKER,
  viewerAccountId,
  identityAccountId,
  accountHasProviderIdentity,
});

test('link, still signed in to the account that started it: every combination of identity owner and provider', () => {
  const cases: [string, SsoFacts, SsoDecision][] = [
    ['a new identity → bound to the account', link(LINKER, null, false), { kind: 'link', accountId: LINKER }],
    ['a new identity, the account has another of the provider → refused', link(LINKER, null, true), { kind: 'refused', reason: 'provider_already_linked' }],
    ['the identity is already this account\'s → nothing to do', link(LINKER, LINKER, false), { kind: 'already-linked' }],
    ['the identity is already this account\'s (its provider identity) → nothing to do', link(LINKER, LINKER, true), { kind: 'already-linked' }],
    ['the identity belongs to another account → refused', link(LINKER, IDENTITY_OWNER, false), { kind: 'refused', reason: 'identity_in_use' }],
    ['the identity belongs to another account, the account has the provider → refused', link(LINKER, IDENTITY_OWNER, true), { kind: 'refused', reason: 'identity_in_use' }],
  ];
  for (const [name, facts, expected] of cases) assert.deepEqual(decideSsoOutcome(facts), expected, name);
});

test('link, signed out or signed in to another account at the callback: always session_changed, whatever the identity', () => {
  let checked = 0;
  for (const viewer of [null, 'someone-else', IDENTITY_OWNER]) {
    for (const owner of [null, LINKER, IDENTITY_OWNER, 'someone-else']) {
      for (const hasProvider of [false, true]) {
        assert.deepEqual(decideSsoOutcome(link(viewer, owner, hasProvider)), { kind: 'refused', reason: 'session_changed' }, `${viewer} ${owner} ${hasProvider}`);
        checked++;
      }
    }
  }
  assert.equal(checked, 24);
});

test('no decision ever gives an account a second identity of the provider or merges into a password-less account', () => {
  const all: SsoFacts[] = [];
  for (const identityAccountId of [null, IDENTITY_OWNER, EMAIL_OWNER, LINKER]) {
    for (const account of [null, emailAccount(false, false), emailAccount(false, true), emailAccount(true, false), emailAccount(true, true)]) {
      all.push(signIn(identityAccountId, account));
    }
    for (const viewerAccountId of [null, LINKER, 'other']) {
      for (const accountHasProviderIdentity of [false, true]) {
        all.push({ kind: 'link', accountId: LINKER, viewerAccountId, identityAccountId, accountHasProviderIdentity });
      }
    }
  }
  for (const facts of all) {
    const d = decideSsoOutcome(facts);
    const why = JSON.stringify(facts);
    if (d.kind === 'link') {
      assert.ok(facts.kind === 'link' && !facts.accountHasProviderIdentity && facts.identityAccountId === null, why);
      assert.equal(d.accountId, facts.viewerAccountId, `only to the signed-in account: ${why}`);
    }
    if (d.kind === 'pending-link') {
      assert.ok(facts.kind === 'sign-in' && facts.emailAccount?.hasPassword && !facts.emailAccount.hasProviderIdentity, why);
      assert.equal(d.accountId, facts.emailAccount.id, why);
    }
    if (d.kind === 'sign-in') assert.equal(d.accountId, facts.identityAccountId, `only to the identity's own account: ${why}`);
    if (d.kind === 'sign-up') assert.ok(facts.kind === 'sign-in' && facts.identityAccountId === null && facts.emailAccount === null, why);
  }
});

const reauth = (viewerSessionId: string | null, identityAccountId: string | null, twoStepOn = false): SsoFacts => ({
  kind: 'reauth',
  accountId: LINKER,
  sessionId: 'session-that-started',
  viewerSessionId,
  identityAccountId,
  twoStepOn,
});

test('reauth: only the session that started it, with the identity linked to its account, two-step off', () => {
  assert.deepEqual(decideSsoOutcome(reauth('session-that-started', LINKER)), {
    kind: 'reauthenticate',
    accountId: LINKER,
    sessionId: 'session-that-started',
  });
  assert.deepEqual(decideSsoOutcome(reauth('another-session', LINKER)), { kind: 'refused', reason: 'session_changed' });
  assert.deepEqual(decideSsoOutcome(reauth(null, LINKER)), { kind: 'refused', reason: 'session_changed' });
  assert.deepEqual(decideSsoOutcome(reauth('session-that-started', IDENTITY_OWNER)), { kind: 'refused', reason: 'identity_mismatch' });
  assert.deepEqual(decideSsoOutcome(reauth('session-that-started', null)), { kind: 'refused', reason: 'identity_mismatch' });
  assert.deepEqual(decideSsoOutcome(reauth('session-that-started', LINKER, true)), { kind: 'refused', reason: 'second_step_required' });
});
