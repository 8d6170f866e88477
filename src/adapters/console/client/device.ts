/// <reference lib="dom" />
// Connect a device (API.md section 12): the tunnel CLI shows a code and this address; the person
// enters the code (or arrives with it from `verification_uri_complete`), sees what asks to sign
// in (client, scopes, when, from which network), then approves (after a recent sign-in) or denies.
// The code is taken out of the address bar once read, so it does not linger in history.
import { explain, gql } from './api.js';
import { graphql, type ResultOf } from '../../documents/graphql.js';
import { section } from './app.js';
import { busy, chip, field, formValues, h, statusLine, timeEl } from './dom.js';
import { ReauthCancelled, withRecentAuth } from './reauth.js';

const Lookup = graphql('query DeviceRequest($userCode: String!) { deviceRequest(userCode: $userCode) { clientId scopes requestedAt ip userAgent } }');
type Request = NonNullable<ResultOf<typeof Lookup>['deviceRequest']>;

const CLIENT_LABEL: Record<string, string> = { 'tunnel-cli': 'Tunnel CLI' };
const SCOPE_TEXT: Record<string, string> = {
  'tunnels:read': 'See your tunnels',
  'tunnels:write': 'Create, change and delete your tunnels',
  'account:read': 'See your account profile',
};

/** XXXX-XXXX as the device shows it, whatever was typed. */
const tidy = (raw: string): string => {
  const letters = raw.toUpperCase().replace(/[^A-Z]/g, '');
  return letters.length === 8 ? `${letters.slice(0, 4)}-${letters.slice(4)}` : raw.trim();
};

export function deviceView(): Node {
  const status = statusLine();
  const area = h('div', {});
  const fromLink = new URLSearchParams(location.search).get('user_code');
  if (fromLink !== null) history.replaceState(null, '', '/device');

  const codeForm = h(
    'form',
    { novalidate: true, class: 'device-code' },
    field(
      'Code',
      { name: 'user_code', type: 'text', required: true, autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false', placeholder: 'ABCD-EFGH', class: 'code-input' },
      'The 8 letters your terminal shows.',
    ),
    h('button', { type: 'submit' }, 'Continue'),
  );
  const input = codeForm.querySelector('input')!;
  if (fromLink) input.value = tidy(fromLink);

  const lookup = (code: string) =>
    busy(codeForm, async () => {
      status.clear();
      try {
        const { deviceRequest } = await gql(Lookup, { userCode: code });
        showRequest(code, deviceRequest);
      } catch (err) {
        status.show('error', explain(err));
        input.focus();
      }
    });

  codeForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const code = (formValues(codeForm).user_code ?? '').trim();
    if (!code) return status.show('error', 'Enter the code your device shows.');
    void lookup(code);
  });

  const done = (kind: 'ok' | 'info', text: string) => {
    area.replaceChildren(h('p', { class: `status ${kind}`, role: 'status', id: 'device-outcome' }, text));
    codeForm.hidden = false;
    input.value = '';
  };

  const showRequest = (code: string, r: Request) => {
    codeForm.hidden = true;
    const approve = h('button', { type: 'button', id: 'approve-device' }, 'Approve');
    const deny = h('button', { type: 'button', class: 'secondary', id: 'deny-device' }, 'Deny');
    const decision = h('div', { class: 'actions' }, approve, deny);
    const card = h(
      'div',
      { class: 'device-request' },
      h('p', {}, h('strong', {}, CLIENT_LABEL[r.clientId] ?? r.clientId), ' wants to sign in to your account with the code ', h('strong', { class: 'code' }, tidy(code)), '.'),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'It may'),
        h('dd', {}, h('ul', { class: 'plain chips-after' }, r.scopes.map((s) => h('li', {}, SCOPE_TEXT[s] ?? s, ' ', chip(s))))),
        h('dt', {}, 'Asked'),
        h('dd', {}, timeEl(r.requestedAt)),
        h('dt', {}, 'From'),
        h('dd', {}, r.ip),
        h('dt', {}, 'Device'),
        h('dd', {}, r.userAgent || 'unknown'),
      ),
      h('p', { class: 'muted' }, 'Approve only if you started this sign-in yourself and the code matches the one in your terminal. It gets an access token, listed under Access tokens, which you can revoke at any time.'),
      decision,
    );
    approve.addEventListener('click', () => {
      void busy(decision, async () => {
        try {
          await withRecentAuth(
            () => gql(graphql('mutation ApproveDevice($userCode: String!) { approveDevice(userCode: $userCode) }'), { userCode: code }),
            'Approving a device needs a recent sign-in.',
            { kind: 'device', userCode: code },
          );
          done('ok', 'Device connected. You can go back to your terminal.');
        } catch (err) {
          if (err instanceof ReauthCancelled) status.show('info', err.message);
          else status.show('error', explain(err));
        }
      });
    });
    deny.addEventListener('click', () => {
      void busy(decision, async () => {
        try {
          await gql(graphql('mutation DenyDevice($userCode: String!) { denyDevice(userCode: $userCode) }'), { userCode: code });
          done('info', 'Denied: the device was not signed in.');
        } catch (err) {
          status.show('error', explain(err));
        }
      });
    });
    area.replaceChildren(card);
    approve.focus();
  };

  if (fromLink) void lookup(fromLink);
  return h(
    'div',
    {},
    h('h1', { tabindex: -1 }, 'Connect a device'),
    h('p', { class: 'muted' }, 'Signing in the tunnel CLI? Enter the code it shows.'),
    section('Device code', 'device', codeForm, area),
    status,
  );
}
