/// <reference lib="dom" />
// Signed-out pages: sign in (password, passkey, Google/GitHub when enabled), sign up, forgot
// password. Signing in sets the HttpOnly session cookie from the GraphQL answer.
import { browserSupportsWebAuthn, startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { ApiError, explain, gql } from './api.js';
import { graphql } from '../../documents/graphql.js';
import { fromJsonObject, toJsonObject } from './json-object.js';
import { flash, link, navigate, providerLabel, signedInHome, toSecondStep, type Boot } from './app.js';
import { busy, field, formValues, h, statusLine, type StatusLine } from './dom.js';
import { showFieldError, showFormError } from './forms.js';

const SSO_ERRORS: Record<string, string> = {
  access_denied: 'The sign-in was cancelled at the provider. Nothing was changed.',
  provider_error: 'The provider did not complete the sign-in. Try again in a moment.',
  server_error: 'The sign-in could not be completed on our side. Try again in a moment.',
  unverified_email: 'The provider does not confirm that you own that email address, so it cannot be used to sign in. Verify it there, or sign in another way and link the provider from your settings.',
  use_existing_method: 'An account with that email exists and signs in another way. Sign in with that method, then link this provider from your settings.',
  identity_in_use: 'That provider identity is already linked to another account.',
  provider_already_linked: 'Your account already has another identity of this provider linked.',
  session_changed: 'You were signed in as someone else when the provider answered. Nothing was changed.',
  identity_mismatch: 'That is not the account linked to yours at the provider, so it cannot confirm it is you. Nothing was changed.',
  second_step_required: 'Two-step sign-in is on: confirm it is you with a code from your authenticator app or a passkey instead.',
};

export function ssoErrorText(code: string, provider: string | null): string {
  const base = SSO_ERRORS[code] ?? 'The sign-in could not be completed.';
  return provider ? `${providerLabel(provider)}: ${base}` : base;
}

export interface SignedIn {
  emailVerified: boolean | null;
  mfaRequired?: boolean;
  mfaToken?: string | null;
}

/** What a sign-in answered: a session, or a second step to take at /mfa. */
export type SignInResult = { kind: 'session' } | { kind: 'mfa'; mfaToken: string };

export async function passwordLogin(email: string, password: string): Promise<SignInResult> {
  const { login } = await gql(graphql('mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { emailVerified mfaRequired mfaToken } }'),
    { email, password },
  );
  return signInResult(login);
}

/** A sign-in answer: with mfaRequired the token goes to the /mfa page (kept in memory, not the URL). */
export function signInResult(answer: SignedIn): SignInResult {
  if (answer.mfaRequired && answer.mfaToken) return { kind: 'mfa', mfaToken: answer.mfaToken };
  return { kind: 'session' };
}

function providerButtons(boot: Boot, verb: string): HTMLElement | null {
  if (boot.providers.length === 0) return null;
  return h(
    'div',
    { class: 'providers' },
    h('p', { class: 'divider' }, h('span', {}, 'or')),
    boot.providers.map((p) => h('a', { class: `button secondary provider-${p}`, href: `/auth/oauth/${encodeURIComponent(p)}/start` }, `${verb} with ${providerLabel(p)}`)),
  );
}

async function passkeySignIn(status: StatusLine): Promise<boolean> {
  try {
    const { passkeyLoginOptions } = await gql(graphql('mutation PasskeyOptions { passkeyLoginOptions { challengeId options } }'));
    const response = await startAuthentication({ optionsJSON: fromJsonObject<PublicKeyCredentialRequestOptionsJSON>(passkeyLoginOptions.options) });
    await gql(graphql('mutation PasskeyLogin($challengeId: String!, $response: JSONObject!) { passkeyLogin(challengeId: $challengeId, response: $response) { emailVerified } }'), {
      challengeId: passkeyLoginOptions.challengeId,
      response: toJsonObject(response),
    });
    return true;
  } catch (err) {
    if (err instanceof ApiError) status.show('error', explain(err));
    else status.show('error', 'The passkey sign-in was cancelled or failed. Try again, or sign in with your password.');
    return false;
  }
}

export function signInView(boot: Boot): Node {
  const status = statusLine();
  const params = new URLSearchParams(location.search);
  const ssoError = params.get('sso_error');
  if (ssoError) status.show('error', ssoErrorText(ssoError, params.get('provider')));
  const form = h(
    'form',
    { novalidate: true },
    field('Email', { name: 'email', type: 'email', autocomplete: 'username', required: true }),
    field('Password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
    h('button', { type: 'submit' }, 'Sign in'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(form);
    if (!v.email || !v.password) return status.show('error', 'Enter your email and your password.');
    void busy(form, async () => {
      try {
        const result = await passwordLogin(v.email!, v.password!);
        if (result.kind === 'mfa') toSecondStep(result.mfaToken);
        else navigate(signedInHome());
      } catch (err) {
        status.show('error', err instanceof ApiError && err.code === 'UNAUTHENTICATED' ? 'That email and password do not match an account.' : explain(err));
      }
    });
  });
  const passkey = browserSupportsWebAuthn()
    ? h('button', { type: 'button', class: 'secondary', id: 'passkey-sign-in' }, 'Sign in with a passkey')
    : null;
  passkey?.addEventListener('click', () => {
    void busy(passkey.parentElement!, async () => {
      if (await passkeySignIn(status)) navigate(signedInHome());
    });
  });
  return h(
    'div',
    { class: 'narrow' },
    h('h1', { tabindex: -1 }, 'Sign in'),
    status,
    form,
    h('div', { class: 'alt' }, passkey, providerButtons(boot, 'Sign in')),
    h('p', { class: 'links' }, link('/forgot-password', 'Forgot your password?'), ' · ', link('/sign-up', 'Create an account')),
  );
}

export function signUpView(boot: Boot): Node {
  const status = statusLine();
  const form = h(
    'form',
    { novalidate: true },
    field('Email', { name: 'email', type: 'email', autocomplete: 'email', required: true }),
    field('Password', { name: 'password', type: 'password', autocomplete: 'new-password', required: true, minlength: 8 }, '8 to 128 characters. A few unrelated words make a good one.'),
    h('button', { type: 'submit' }, 'Create account'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(form);
    if (!v.email) return showFieldError(form, status, 'email', 'Enter your email address.');
    if ((v.password ?? '').length < 8) return showFieldError(form, status, 'password', 'The password needs at least 8 characters.');
    void busy(form, async () => {
      try {
        await gql(graphql('mutation Signup($email: String!, $password: String!) { signup(email: $email, password: $password) { id } }'), { email: v.email ?? '', password: v.password ?? '' });
      } catch (err) {
        return showFormError(form, status, err);
      }
      try {
        const result = await passwordLogin(v.email!, v.password!);
        flash('ok', `Welcome! We sent a verification link to ${v.email}.`);
        if (result.kind === 'mfa') toSecondStep(result.mfaToken);
        else navigate('/account');
      } catch (err) {
        flash('ok', 'Your account is created. Sign in to continue.');
        navigate('/sign-in');
        void err;
      }
    });
  });
  return h(
    'div',
    { class: 'narrow' },
    h('h1', { tabindex: -1 }, 'Create your account'),
    status,
    form,
    h('div', { class: 'alt' }, providerButtons(boot, 'Sign up')),
    h('p', { class: 'links' }, 'Already have an account? ', link('/sign-in', 'Sign in')),
  );
}

export function forgotPasswordView(): Node {
  const status = statusLine();
  const form = h(
    'form',
    { novalidate: true },
    h('p', {}, 'Enter the email of your account. If it has one, we send a link to choose a new password (it works once, for an hour). Accounts that sign in only with Google or GitHub set a first password this way.'),
    field('Email', { name: 'email', type: 'email', autocomplete: 'email', required: true }),
    h('button', { type: 'submit' }, 'Send the link'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const v = formValues(form);
    if (!v.email) return showFieldError(form, status, 'email', 'Enter your email address.');
    void busy(form, async () => {
      try {
        await gql(graphql('mutation Forgot($email: String!) { forgotPassword(email: $email) }'), { email: v.email ?? '' });
        status.show('ok', `If ${v.email} has an account, a link to choose a new password is on its way. Check your inbox.`);
        form.reset();
      } catch (err) {
        status.show('error', explain(err));
      }
    });
  });
  return h('div', { class: 'narrow' }, h('h1', { tabindex: -1 }, 'Forgot your password?'), status, form, h('p', { class: 'links' }, link('/sign-in', 'Back to sign in')));
}
