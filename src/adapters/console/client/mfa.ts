/// <reference lib="dom" />
// The second step of a sign-in (API.md section 7): after a password (or SSO, which lands here
// with ?token=) on an account with two-step on, a TOTP code or a recovery code finishes it.
import { ApiError, explain, gql } from './api.js';
import { graphql } from '../../documents/graphql.js';
import { link, navigate, signedInHome, state } from './app.js';
import { busy, field, formValues, h, statusLine } from './dom.js';
import { showFieldError } from './forms.js';

export function mfaView(): Node {
  const fromUrl = new URLSearchParams(location.search).get('token');
  if (fromUrl) {
    state.mfaToken = fromUrl;
    history.replaceState(null, '', location.pathname);
  }
  const token = state.mfaToken;
  const status = statusLine();
  if (!token) {
    return h(
      'div',
      { class: 'narrow' },
      h('h1', { tabindex: -1 }, 'Second step'),
      h('p', { class: 'status error', role: 'alert' }, 'This sign-in attempt is missing or has ended. Sign in again.'),
      h('p', {}, link('/sign-in', 'Back to sign in')),
    );
  }
  const form = h(
    'form',
    { novalidate: true },
    field(
      'Code',
      { name: 'code', type: 'text', inputmode: 'text', autocomplete: 'one-time-code', autocapitalize: 'none', spellcheck: 'false', required: true },
      'The 6-digit code from your authenticator app, or one of your recovery codes.',
    ),
    h('button', { type: 'submit' }, 'Verify'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const code = (formValues(form).code ?? '').trim();
    if (!code) return showFieldError(form, status, 'code', 'Enter a code.');
    void busy(form, async () => {
      try {
        await gql(graphql('mutation VerifyMfa($mfaToken: String!, $code: String!) { verifyMfa(mfaToken: $mfaToken, code: $code) { emailVerified } }'), { mfaToken: token, code });
        state.mfaToken = null;
        navigate(signedInHome(), { replace: true });
      } catch (err) {
        if (err instanceof ApiError && err.code === 'UNAUTHENTICATED') status.show('error', 'That code is not right. Check the time on your device and try again.');
        else if (err instanceof ApiError && err.code === 'BAD_REQUEST') {
          state.mfaToken = null;
          status.show('error', h('span', {}, explain(err), ' ', link('/sign-in', 'Sign in again')));
        } else status.show('error', explain(err));
      }
    });
  });
  return h(
    'div',
    { class: 'narrow' },
    h('h1', { tabindex: -1 }, 'Second step'),
    h('p', {}, 'Your account has two-step sign-in on. Enter a code to finish signing in.'),
    status,
    form,
    h('p', { class: 'links' }, link('/sign-in', 'Cancel and start over')),
  );
}
