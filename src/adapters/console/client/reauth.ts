/// <reference lib="dom" />
// Recent authentication in the console (API.md sections 7a and 13a). Adding a passkey, linking a
// provider, new recovery codes, service tokens, webhooks, approving a device and allowing an
// application on a tunnel need a session that proved a credential in the last minutes; when the
// server answers REAUTH_REQUIRED, a small dialog asks for one (password, a code, a passkey, or,
// for an account with none of them, its provider), then the action runs again: a person never
// meets a dead end. The dialog says what the confirmation is for in the words of the action being
// done (every caller names it: "Adding a webhook needs a recent sign-in."). A provider's round
// trip leaves the page, so the action to resume is kept in sessionStorage and taken up when the
// console comes back (main.ts).
import { browserSupportsWebAuthn, startAuthentication, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { ApiError, explain, gql } from './api.js';
import { graphql } from '../../documents/graphql.js';
import { fromJsonObject, toJsonObject } from './json-object.js';
import { providerLabel } from './app.js';
import { busy, field, formValues, h, statusLine } from './dom.js';

/** An action the console takes up again after a provider re-authentication. */
export type Resume = { kind: 'add-passkey' } | { kind: 'link'; provider: string } | { kind: 'device'; userCode: string } | { kind: 'consent'; request: string };

const RESUME_KEY = 'console:resume';

export function takeResume(): Resume | null {
  const raw = sessionStorage.getItem(RESUME_KEY);
  sessionStorage.removeItem(RESUME_KEY);
  if (!raw) return null;
  try {
    return JSON.parse(raw) as Resume;
  } catch {
    return null;
  }
}

/** Thrown when the person closes the dialog: the caller says nothing happened. */
export class ReauthCancelled extends Error {
  constructor() {
    super('Cancelled: nothing was changed.');
  }
}

/**
 * Runs `action`; when the server wants a recent authentication, asks for it in the dialog and
 * runs the action once more. `reason` (one sentence naming the action, "Adding a webhook needs a
 * recent sign-in.") is what the dialog says it is for; `resume` what to take up after a provider
 * round trip.
 */
export async function withRecentAuth<T>(action: () => Promise<T>, reason: string, resume?: Resume): Promise<T> {
  try {
    return await action();
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'REAUTH_REQUIRED') throw err;
  }
  await confirmIdentity(reason, resume);
  return action();
}

/** Resolves once the session is recently authenticated, asking in the dialog when it is not. */
export async function ensureRecentAuth(reason: string, resume?: Resume): Promise<void> {
  // The server says null once the window has passed (this device's clock may be off: not compared).
  const { me } = await gql(graphql('query Recent { me { reauthenticatedUntil } }'));
  if (me?.reauthenticatedUntil) return;
  await confirmIdentity(reason, resume);
}

/** The dialog: resolves when the session re-authenticated, rejects with ReauthCancelled when closed. */
export async function confirmIdentity(reason: string, resume?: Resume): Promise<void> {
  const { me } = await gql(graphql('query Proofs { me { hasPassword mfa { totp passkeys } linkedProviders { provider } } }'));
  if (!me) throw new ApiError('Your session has ended. Sign in again.', 'UNAUTHENTICATED');
  return new Promise<void>((resolve, reject) => {
    const status = statusLine();
    const dialog = h('dialog', { class: 'reauth', id: 'reauth-dialog', 'aria-labelledby': 'reauth-title', 'aria-describedby': 'reauth-why' });
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      dialog.close();
      dialog.remove();
      if (ok) resolve();
      else reject(new ReauthCancelled());
    };
    const submit = async (form: HTMLElement, variables: Record<string, unknown>, wrong: string) => {
      await busy(form, async () => {
        try {
          await gql(graphql('mutation Reauth($password: String, $code: String, $challengeId: String, $response: JSONObject) { reauthenticate(password: $password, code: $code, challengeId: $challengeId, response: $response) }'),
            variables,
          );
          finish(true);
        } catch (err) {
          status.show('error', err instanceof ApiError && err.code === 'UNAUTHENTICATED' ? wrong : explain(err));
        }
      });
    };
    const parts: HTMLElement[] = [];
    if (me.hasPassword) {
      const form = h(
        'form',
        { novalidate: true, id: 'reauth-password' },
        field('Password', { name: 'password', type: 'password', autocomplete: 'current-password', required: true }),
        h('button', { type: 'submit' }, 'Confirm'),
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        void submit(form, { password: formValues(form).password ?? '' }, 'That is not your password.');
      });
      parts.push(form);
    }
    if (me.mfa.totp) {
      const form = h(
        'form',
        { novalidate: true, id: 'reauth-code' },
        field('Code from your app, or a recovery code', { name: 'code', type: 'text', autocomplete: 'one-time-code', required: true, autocapitalize: 'none', spellcheck: 'false' }),
        h('button', { type: 'submit', class: me.hasPassword ? 'secondary' : '' }, 'Confirm with the code'),
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        void submit(form, { code: (formValues(form).code ?? '').trim() }, 'That code is not right. Check the time on your device and try again.');
      });
      parts.push(form);
    }
    if (me.mfa.passkeys > 0 && browserSupportsWebAuthn()) {
      const button = h('button', { type: 'button', class: 'secondary', id: 'reauth-passkey' }, 'Use a passkey');
      const wrap = h('div', { class: 'actions' }, button);
      button.addEventListener('click', () => {
        void busy(wrap, async () => {
          let options: { challengeId: string; options: Record<string, unknown> };
          try {
            ({ passkeyLoginOptions: options } = await gql(graphql('mutation PasskeyOptions { passkeyLoginOptions { challengeId options } }')));
          } catch (err) {
            return status.show('error', explain(err));
          }
          let response;
          try {
            response = await startAuthentication({ optionsJSON: fromJsonObject<PublicKeyCredentialRequestOptionsJSON>(options.options) });
          } catch {
            return status.show('error', 'The passkey was not used (cancelled, or this device has none for this account).');
          }
          await submit(wrap, { challengeId: options.challengeId, response: toJsonObject(response) }, 'That passkey is not one of this account.');
        });
      });
      parts.push(wrap);
    }
    // Neither password nor two-step: signing in again with a linked provider proves it.
    if (!me.hasPassword && !me.mfa.totp) {
      const links = me.linkedProviders.map((p) => {
        const a = h('a', { class: 'button secondary', href: `/auth/oauth/${encodeURIComponent(p.provider)}/start?intent=reauth` }, `Continue with ${providerLabel(p.provider)}`);
        a.addEventListener('click', () => {
          if (resume) sessionStorage.setItem(RESUME_KEY, JSON.stringify(resume));
        });
        return a;
      });
      if (links.length) parts.push(h('div', { class: 'providers' }, links));
    }
    const cancel = h('button', { type: 'button', class: 'link-button', id: 'reauth-cancel' }, 'Cancel');
    cancel.addEventListener('click', () => finish(false));
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      finish(false);
    });
    dialog.append(
      h('h2', { id: 'reauth-title' }, 'Confirm it’s you'),
      h('p', { id: 'reauth-why' }, `${reason} Confirm it is you, and you can go on for the next few minutes.`),
      ...(parts.length ? parts : [h('p', { class: 'status error' }, 'This account has no way to confirm it here. Sign out and sign in again.')]),
      status,
      h('p', { class: 'links' }, cancel),
    );
    document.body.append(dialog);
    dialog.showModal();
    dialog.querySelector<HTMLElement>('input, button')?.focus();
  });
}
