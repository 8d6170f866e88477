/// <reference lib="dom" />
// The security page: linked providers, passkeys, sessions and the security activity.
import { browserSupportsWebAuthn, startRegistration, type PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { ApiError, explain, gql } from './api.js';
import { authorizedApplications } from './grants.js';
import { graphql } from '../../documents/graphql.js';
import { fromJsonObject, toJsonObject } from './json-object.js';
import { flash, loadBoot, navigate, providerLabel, section, type Boot, type Me } from './app.js';
import { describeAgent } from './agent.js';
import { busy, chip, field, formValues, h, statusLine, timeEl, type Child, type StatusLine } from './dom.js';
import { showFormError } from './forms.js';
import { ReauthCancelled, ensureRecentAuth, withRecentAuth, type Resume } from './reauth.js';
import { eventText } from './activity-text.js';

/** An error as the page shows it; closing the confirmation dialog is no error. */
function showError(status: StatusLine, err: unknown, asksPassword = false): void {
  if (err instanceof ReauthCancelled) status.show('info', err.message);
  else status.show('error', asksPassword && err instanceof ApiError && err.code === 'UNAUTHENTICATED' ? 'That is not your current password.' : explain(err));
}

/** Something on this page changed the account: the activity list below shows it at once. */
const ACTIVITY_CHANGED = 'console:activity-changed';
const activityChanged = (): void => void document.dispatchEvent(new Event(ACTIVITY_CHANGED));

function providers(me: Me, boot: Boot, refresh: () => void): HTMLElement {
  const status = statusLine();
  const linked = new Set(me.linkedProviders.map((p) => p.provider));
  const rows = me.linkedProviders.map((p) => {
    const unlink = h('button', { type: 'button', class: 'secondary small' }, `Unlink ${providerLabel(p.provider)}`);
    unlink.addEventListener('click', () => {
      void busy(unlink.parentElement!, async () => {
        try {
          await gql(graphql('mutation Unlink($provider: String!) { unlinkProvider(provider: $provider) }'), { provider: p.provider });
          flash('ok', `${providerLabel(p.provider)} is no longer linked.`);
          refresh();
        } catch (err) {
          status.show('error', explain(err));
        }
      });
    });
    return h('li', { class: 'row' }, h('div', {}, h('strong', {}, providerLabel(p.provider)), h('br'), h('span', { class: 'muted' }, `${p.email} · linked `, timeEl(p.linkedAt))), unlink);
  });
  const linkable = boot.providers.filter((p) => !linked.has(p));
  // A new way in: only to a verified address, after a recent sign-in (the dialog asks for one).
  const linkButton = (p: string) => {
    const href = `/auth/oauth/${encodeURIComponent(p)}/start?intent=link`;
    const a = h('a', { class: 'button secondary', href }, `Link ${providerLabel(p)}`);
    a.addEventListener('click', (e) => {
      e.preventDefault();
      if (!me.emailVerified) return status.show('error', 'Verify your email address first: open the link we sent you, then link a provider.');
      void (async () => {
        try {
          await ensureRecentAuth(`Linking ${providerLabel(p)} to your account needs a recent sign-in.`, { kind: 'link', provider: p });
          location.assign(href);
        } catch (err) {
          showError(status, err);
        }
      })();
    });
    return a;
  };
  return section(
    'Sign-in methods',
    'providers',
    h(
      'p',
      {},
      me.hasPassword
        ? `You sign in with your email and password${linked.size ? ', and with the providers below.' : '.'}`
        : `Your account has no password${linked.size ? ': you sign in with the providers below.' : '.'}`,
    ),
    rows.length ? h('ul', { class: 'list' }, rows) : h('p', { class: 'muted' }, 'No provider is linked.'),
    linkable.length
      ? h(
          'div',
          { class: 'actions' },
          linkable.map(linkButton),
        )
      : null,
    status,
  );
}

interface Passkey {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  backedUp: boolean;
}

/** The browser did not make the passkey (cancelled, or the device cannot): nothing to retry. */
class NotCreated extends Error {}

async function passkeys(autoAdd: boolean): Promise<HTMLElement> {
  const status = statusLine();
  const list = h('ul', { class: 'list' });
  const body = h('div', {});
  const load = async () => {
    const { me } = await gql(graphql('query Passkeys { me { passkeys { id name createdAt lastUsedAt backedUp } } }'));
    list.replaceChildren(...(me?.passkeys ?? []).map(row));
    if (!me?.passkeys.length) list.replaceChildren(h('li', { class: 'muted' }, 'No passkey yet.'));
  };
  const row = (p: Passkey): HTMLElement => {
    const li = h('li', { class: 'row' });
    const show = () => {
      const rename = h('button', { type: 'button', class: 'secondary small' }, 'Rename');
      const remove = h('button', { type: 'button', class: 'secondary small' }, 'Delete');
      rename.setAttribute('aria-label', `Rename passkey ${p.name}`);
      remove.setAttribute('aria-label', `Delete passkey ${p.name}`);
      li.replaceChildren(
        h('div', {}, h('strong', {}, p.name), h('br'), h('span', { class: 'muted' }, 'added ', timeEl(p.createdAt), ' · last used ', timeEl(p.lastUsedAt), p.backedUp ? ' · synced' : '')),
        h('div', { class: 'buttons' }, rename, remove),
      );
      rename.addEventListener('click', edit);
      remove.addEventListener('click', () => {
        void busy(li, async () => {
          try {
            await gql(graphql('mutation DeletePasskey($id: ID!) { deletePasskey(id: $id) }'), { id: p.id });
            status.show('ok', `The passkey "${p.name}" is deleted.`);
            activityChanged();
            await load();
          } catch (err) {
            status.show('error', explain(err));
          }
        });
      });
    };
    const edit = () => {
      const form = h(
        'form',
        { class: 'inline' },
        field('Passkey name', { name: 'name', type: 'text', value: p.name, required: true, autocomplete: 'off' }),
        h('button', { type: 'submit', class: 'small' }, 'Save'),
      );
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        void busy(form, async () => {
          try {
            await gql(graphql('mutation RenamePasskey($id: ID!, $name: String!) { renamePasskey(id: $id, name: $name) { id } }'), { id: p.id, name: formValues(form).name ?? '' });
            status.show('ok', 'The passkey is renamed.');
            await load();
          } catch (err) {
            showFormError(form, status, err);
          }
        });
      });
      li.replaceChildren(form);
      form.querySelector('input')?.focus();
    };
    show();
    return li;
  };
  const add = h('button', { type: 'button', id: 'add-passkey' }, 'Add a passkey');
  const addOne = async () => {
    const { passkeyRegistrationOptions } = await gql(graphql('mutation PasskeyRegistration { passkeyRegistrationOptions }'));
    let response;
    try {
      response = await startRegistration({ optionsJSON: fromJsonObject<PublicKeyCredentialCreationOptionsJSON>(passkeyRegistrationOptions) });
    } catch {
      throw new NotCreated();
    }
    await gql(graphql('mutation AddPasskey($response: JSONObject!) { addPasskey(response: $response) { id } }'), { response: toJsonObject(response) });
  };
  const startAdd = () => {
    void busy(body, async () => {
      try {
        await withRecentAuth(addOne, 'Adding a passkey needs a recent sign-in.', { kind: 'add-passkey' });
        status.show('ok', 'The passkey is added. You can sign in with it from the sign-in page.');
        activityChanged();
        await load();
      } catch (err) {
        if (err instanceof NotCreated) status.show('error', 'The passkey was not created (cancelled, or this device cannot make one).');
        else showError(status, err);
      }
    });
  };
  add.addEventListener('click', startAdd);
  await load();
  append(body, [
    h('p', {}, 'A passkey signs you in with your device (fingerprint, face or screen lock) instead of a password, and cannot be phished.'),
    list,
    browserSupportsWebAuthn() ? add : h('p', { class: 'muted' }, 'This browser cannot create passkeys.'),
    status,
  ]);
  // Back from confirming it with a provider: the add the person asked for goes on.
  if (autoAdd && browserSupportsWebAuthn()) queueMicrotask(startAdd);
  return section('Passkeys', 'passkeys', body);
}

function append(parent: HTMLElement, children: Child[]): void {
  for (const c of children) if (c) parent.append(c as Node);
}

interface MfaState {
  totp: boolean;
  recoveryCodesLeft: number;
}

/** Ten recovery codes, shown this once, with a way to keep them. */
function recoveryCodes(codes: string[], done: () => void): HTMLElement {
  const ok = h('button', { type: 'button' }, 'I have saved these codes');
  ok.addEventListener('click', done);
  const copy = h('button', { type: 'button', class: 'secondary' }, 'Copy the codes');
  copy.addEventListener('click', () => {
    void navigator.clipboard?.writeText(codes.join('\n')).then(
      () => (copy.textContent = 'Copied'),
      () => (copy.textContent = 'Copy failed: select them by hand'),
    );
  });
  return h(
    'div',
    { class: 'recovery', id: 'recovery-codes' },
    h('p', {}, h('strong', {}, 'Your recovery codes. '), 'Each one signs you in once if you lose your authenticator. Keep them somewhere safe: they are shown only now.'),
    h('ol', { class: 'codes' }, codes.map((c) => h('li', {}, h('code', {}, c)))),
    h('div', { class: 'actions' }, copy, ok),
  );
}

async function twoStep(me: Me): Promise<HTMLElement> {
  const status = statusLine();
  const body = h('div', {});
  const passwordField = () =>
    me.hasPassword ? field('Current password', { name: 'currentPassword', type: 'password', autocomplete: 'current-password', required: true }) : null;
  const load = async () => {
    const { me: m } = await gql(graphql('query TwoStep { me { mfa { totp recoveryCodesLeft } } }'));
    render(m?.mfa ?? { totp: false, recoveryCodesLeft: 0 });
  };
  const showCodes = (codes: string[]) => {
    body.replaceChildren(recoveryCodes(codes, () => void load().then(() => body.querySelector<HTMLElement>('button')?.focus())));
    body.querySelector<HTMLElement>('#recovery-codes button')?.focus();
  };

  const render = (mfa: MfaState) => {
    status.clear();
    if (!mfa.totp) {
      const start = h('form', { novalidate: true }, passwordField(), h('button', { type: 'submit' }, 'Set up an authenticator app'));
      start.addEventListener('submit', (e) => {
        e.preventDefault();
        const v = formValues(start);
        void busy(start, async () => {
          try {
            const { setupTotp } = await gql(graphql('mutation SetupTotp($currentPassword: String) { setupTotp(currentPassword: $currentPassword) { secret qrSvg } }'),
              { currentPassword: v.currentPassword ?? null },
            );
            confirmStep(setupTotp);
          } catch (err) {
            status.show('error', err instanceof ApiError && err.code === 'UNAUTHENTICATED' ? 'That is not your current password.' : explain(err));
          }
        });
      });
      body.replaceChildren(h('p', {}, 'Two-step sign-in is ', h('strong', {}, 'off'), '. With it on, a sign-in with your password (or Google/GitHub) also asks for a code from an authenticator app.'), start);
      return;
    }
    const disable = h(
      'form',
      { novalidate: true, id: 'disable-totp', class: 'subsection' },
      h('h3', {}, 'Turn it off'),
      passwordField(),
      field('Code from your app, or a recovery code', { name: 'code', type: 'text', autocomplete: 'one-time-code', required: true, autocapitalize: 'none', spellcheck: 'false' }),
      h('button', { type: 'submit', class: 'danger' }, 'Turn off two-step sign-in'),
    );
    disable.addEventListener('submit', (e) => {
      e.preventDefault();
      const v = formValues(disable);
      void busy(disable, async () => {
        try {
          await gql(graphql('mutation DisableTotp($currentPassword: String, $code: String!) { disableTotp(currentPassword: $currentPassword, code: $code) }'), {
            currentPassword: v.currentPassword ?? null,
            code: (v.code ?? '').trim(),
          });
          await load();
          status.show('ok', 'Two-step sign-in is off.');
          activityChanged();
        } catch (err) {
          status.show('error', err instanceof ApiError && err.code === 'UNAUTHENTICATED' ? 'That is not your current password.' : explain(err));
        }
      });
    });
    const regenerate = h(
      'form',
      { novalidate: true, id: 'regenerate-codes', class: 'subsection' },
      h('h3', {}, 'New recovery codes'),
      h('p', { class: 'hint' }, 'The codes you have now stop working. A code from your app (or one recovery code) confirms it.'),
      passwordField(),
      field('Code from your app, or a recovery code', { name: 'code', type: 'text', autocomplete: 'one-time-code', required: true, autocapitalize: 'none', spellcheck: 'false' }),
      h('button', { type: 'submit', class: 'secondary' }, 'Make new recovery codes'),
    );
    regenerate.addEventListener('submit', (e) => {
      e.preventDefault();
      const v = formValues(regenerate);
      void busy(regenerate, async () => {
        try {
          const { regenerateRecoveryCodes } = await withRecentAuth(() =>
            gql(graphql('mutation Regenerate($currentPassword: String, $code: String!) { regenerateRecoveryCodes(currentPassword: $currentPassword, code: $code) { recoveryCodes } }'),
              { currentPassword: v.currentPassword ?? null, code: (v.code ?? '').trim() },
            ),
            'Making new recovery codes needs a recent sign-in.',
          );
          showCodes(regenerateRecoveryCodes.recoveryCodes);
          activityChanged();
        } catch (err) {
          showError(status, err, true);
        }
      });
    });
    body.replaceChildren(
      h('p', {}, 'Two-step sign-in is ', h('strong', {}, 'on'), `: an authenticator app code is asked after your password. Recovery codes left: ${mfa.recoveryCodesLeft}.`),
      regenerate,
      disable,
    );
  };

  const confirmStep = (setup: { secret: string; qrSvg: string }) => {
    const qr = h('img', { class: 'qr', src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qrSvg)}`, alt: 'QR code to add this account to an authenticator app', width: 192, height: 192 });
    const form = h(
      'form',
      { novalidate: true, id: 'confirm-totp' },
      field('Code from the app', { name: 'code', type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', required: true, pattern: '[0-9]{6}' }, 'The 6 digits the app shows now.'),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Turn on two-step sign-in'), h('button', { type: 'button', class: 'secondary', id: 'cancel-totp' }, 'Cancel')),
    );
    form.querySelector('#cancel-totp')?.addEventListener('click', () => void load());
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const code = (formValues(form).code ?? '').replace(/\s+/g, '');
      void busy(form, async () => {
        try {
          const { confirmTotp } = await gql(graphql('mutation ConfirmTotp($code: String!) { confirmTotp(code: $code) { recoveryCodes } }'), { code });
          status.show('ok', 'Two-step sign-in is on.');
          activityChanged();
          showCodes(confirmTotp.recoveryCodes);
        } catch (err) {
          status.show('error', explain(err));
        }
      });
    });
    body.replaceChildren(
      h('p', {}, 'Scan this code with your authenticator app (or type the key), then enter the code it shows. This setup stays open for 10 minutes.'),
      qr,
      h('p', {}, 'Key: ', chip(setup.secret, { id: 'totp-secret' })),
      form,
    );
    form.querySelector('input')?.focus();
  };

  await load();
  return section('Two-step sign-in', 'two-step', body, status);
}


const METHOD_LABEL: Record<string, string> = {
  password: 'password',
  google: 'Google',
  github: 'GitHub',
  passkey: 'passkey',
  totp: 'an authenticator code',
  recovery_code: 'a recovery code',
};

async function sessions(): Promise<HTMLElement> {
  const status = statusLine();
  const list = h('ul', { class: 'list' });
  const load = async () => {
    const { me } = await gql(graphql('query Sessions { me { sessions { id userAgent ip createdAt lastSeenAt current method } } }'));
    // This browser first, as people look for it; the others in the API's order.
    const rows = [...(me?.sessions ?? [])].sort((a, b) => Number(b.current) - Number(a.current));
    list.replaceChildren(
      ...rows.map((s) => {
        const revoke = s.current ? h('span', { class: 'badge ok' }, 'This browser') : h('button', { type: 'button', class: 'secondary small' }, 'Revoke');
        if (!s.current) {
          revoke.setAttribute('aria-label', `Revoke the session from ${describeAgent(s.userAgent)} (${s.ip})`);
          revoke.addEventListener('click', () => {
            void busy(list, async () => {
              try {
                await gql(graphql('mutation Revoke($id: ID!) { revokeSession(id: $id) }'), { id: s.id });
                status.show('ok', 'That session is signed out.');
                activityChanged();
                await load();
              } catch (err) {
                status.show('error', explain(err));
              }
            });
          });
        }
        return h(
          'li',
          { class: s.current ? 'row current' : 'row' },
          h('div', {}, h('strong', { title: s.userAgent }, describeAgent(s.userAgent)), h('br'), h('span', { class: 'muted' }, `${s.ip} · ${METHOD_LABEL[s.method] ?? s.method} · since `, timeEl(s.createdAt), ' · last seen ', timeEl(s.lastSeenAt))),
          revoke,
        );
      }),
    );
  };
  await load();
  const everywhere = h('button', { type: 'button', class: 'danger' }, 'Sign out everywhere');
  everywhere.addEventListener('click', () => {
    void busy(everywhere.parentElement!, async () => {
      try {
        await gql(graphql('mutation LogoutAll { logoutAll }'));
        flash('ok', 'Every session of your account is signed out, this one included.');
        await loadBoot();
        navigate('/sign-in', { replace: true });
      } catch (err) {
        status.show('error', explain(err));
      }
    });
  });
  return section('Sessions', 'sessions', h('p', {}, 'Where your account is signed in now.'), list, h('div', { class: 'actions' }, everywhere), status);
}

interface SecurityEvent {
  id: string;
  type: string;
  at: string;
  ip: string;
  userAgent: string;
  detail: Record<string, unknown>;
}

function eventDetail(e: SecurityEvent): string {
  const d = e.detail;
  const parts: string[] = [];
  if (typeof d.method === 'string') parts.push(`with ${METHOD_LABEL[d.method] ?? d.method}`);
  if (d.secondStep === true || d.second_step === true) parts.push('and a second step');
  if (typeof d.provider === 'string') parts.push(`(${d.provider === 'google' || d.provider === 'github' ? providerLabel(d.provider) : d.provider})`);
  if (typeof d.to === 'string') parts.push(`to ${d.to}`);
  if (typeof d.new_email === 'string') parts.push(`to ${d.new_email}`);
  if (typeof d.during === 'string') parts.push(`(${d.during})`);
  if (typeof d.reason === 'string') parts.push(`(${d.reason})`);
  if (typeof d.name === 'string') parts.push(`“${d.name}”`);
  if (typeof d.device_ip === 'string') parts.push(`from ${d.device_ip}`);
  return parts.join(' ');
}

async function activity(): Promise<HTMLElement> {
  const status = statusLine();
  const list = h('ol', { class: 'list events' });
  const more = h('button', { type: 'button', class: 'secondary', id: 'activity-more' }, 'Show older');
  let after: string | null = null;
  /** The next page; with `fresh`, the newest page in place of everything shown. */
  const load = async (fresh = false) => {
    const { me } = await gql(graphql('query Activity($after: String) { me { securityEvents(first: 10, after: $after) { edges { node { id type at ip userAgent detail } } pageInfo { hasNextPage endCursor } } } }'),
      { after: fresh ? null : after },
    );
    const page = me?.securityEvents;
    if (fresh) list.replaceChildren();
    for (const { node: e } of page?.edges ?? []) {
      list.append(h('li', { class: 'row' }, h('div', {}, h('strong', {}, eventText(e.type)), ' ', eventDetail(e), h('br'), h('span', { class: 'muted' }, timeEl(e.at), ` · ${e.ip}${e.userAgent ? ` · ${describeAgent(e.userAgent)}` : ''}`))));
    }
    if (!list.children.length) list.append(h('li', { class: 'muted' }, 'Nothing yet.'));
    after = page?.pageInfo.endCursor ?? null;
    more.hidden = !page?.pageInfo.hasNextPage;
  };
  more.addEventListener('click', () => {
    void busy(more.parentElement!, async () => {
      try {
        await load();
      } catch (err) {
        status.show('error', explain(err));
      }
    });
  });
  // Back to the newest page after a change made on this page (one reload at a time); a list no
  // longer shown lets go.
  let queue: Promise<void> = Promise.resolve();
  const reload = () => {
    if (!list.isConnected) return void document.removeEventListener(ACTIVITY_CHANGED, reload);
    queue = queue.then(() => load(true)).catch((err: unknown) => status.show('error', explain(err)));
  };
  document.addEventListener(ACTIVITY_CHANGED, reload);
  await load();
  return section('Security activity', 'activity', h('p', {}, 'Sign-ins and changes to your account over the last 90 days, newest first.'), list, h('div', { class: 'actions' }, more), status);
}

export async function securityView(me: Me, boot: Boot, refresh: () => void, resume: Resume | null = null): Promise<Node> {
  const parts = await Promise.all([twoStep(me), passkeys(resume?.kind === 'add-passkey'), sessions(), authorizedApplications(), activity()]);
  return h('div', {}, h('h1', { tabindex: -1 }, 'Security'), providers(me, boot, refresh), ...parts);
}

export { ApiError };
