// The script of the /passkeys page, bundled with @simplewebauthn/browser into one same-origin
// file (scripts/build.mjs; bundled in memory when running from the sources). It talks only to the
// public REST API of this server: sign in (password or passkey), list, add, rename and remove
// passkeys, sign out. The project compiles without the DOM library, so the few browser objects
// used are declared here, in this module only.
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';

interface Elem {
  hidden: boolean;
  disabled: boolean;
  value: string;
  textContent: string | null;
  className: string;
  dataset: Record<string, string | undefined>;
  addEventListener(type: string, listener: (event: { preventDefault(): void; target: unknown }) => void): void;
  append(...nodes: (Elem | string)[]): void;
  replaceChildren(...nodes: (Elem | string)[]): void;
  setAttribute(name: string, value: string): void;
  closest(selector: string): Elem | null;
  querySelector(selector: string): Elem | null;
}
declare const document: { getElementById(id: string): Elem | null; createElement(tag: string): Elem };

interface Answer {
  ok: boolean;
  status: number;
  // Parsed JSON of an answer of this server's API.
  data: Record<string, any> | null; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON
}

const $ = (id: string): Elem => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} missing`);
  return el;
};

const result = $('result');
const show = (ok: boolean, text: string) => {
  result.className = ok ? 'ok' : 'error';
  result.textContent = text;
};

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  return { ok: res.ok, status: res.status, data };
}

const detail = (a: Answer) => (a.data && typeof a.data.detail === 'string' ? a.data.detail : `Something went wrong (${a.status}).`);

/** A cancelled or refused browser ceremony, said plainly. */
function ceremonyError(err: unknown): string {
  const e = err as { name?: string; message?: string };
  if (e.name === 'NotAllowedError' || e.name === 'AbortError') return 'The passkey request was cancelled or timed out.';
  return e.message || 'The browser could not complete the passkey request.';
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

async function busy(button: Elem, action: () => Promise<void>): Promise<void> {
  button.disabled = true;
  try {
    await action();
  } catch (err) {
    show(false, ceremonyError(err));
  } finally {
    button.disabled = false;
  }
}

function passkeyItem(p: { id: string; name: string; created_at: string; last_used_at: string | null; backed_up: boolean }): Elem {
  const li = document.createElement('li');
  li.dataset.id = p.id;
  const name = document.createElement('input');
  name.value = p.name;
  name.setAttribute('aria-label', 'Passkey name');
  name.setAttribute('maxlength', '64');
  name.className = 'name';
  const meta = document.createElement('small');
  meta.textContent = `Added ${when(p.created_at)} · last used ${when(p.last_used_at)}${p.backed_up ? ' · synced' : ''}`;
  const rename = document.createElement('button');
  rename.textContent = 'Rename';
  rename.dataset.action = 'rename';
  const remove = document.createElement('button');
  remove.textContent = 'Remove';
  remove.dataset.action = 'remove';
  li.append(name, rename, remove, meta);
  return li;
}

async function refresh(): Promise<void> {
  const me = await call('GET', '/api/account');
  $('signed-out').hidden = me.ok;
  $('signed-in').hidden = !me.ok;
  if (!me.ok) return;
  $('who').textContent = String(me.data?.email ?? '');
  const list = await call('GET', '/api/account/passkeys');
  const passkeys = (list.data?.passkeys ?? []) as Parameters<typeof passkeyItem>[0][];
  $('list').replaceChildren(...passkeys.map(passkeyItem));
  $('none').hidden = passkeys.length > 0;
}

const supported = browserSupportsWebAuthn();
if (!supported) show(false, 'This browser does not support passkeys.');

$('password-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const button = $('password-submit');
  void busy(button, async () => {
    const r = await call('POST', '/auth/login', { email: $('email').value, password: $('password').value });
    if (!r.ok) return show(false, detail(r));
    if (r.data?.mfa_required) return show(false, 'This account uses two-step sign-in: sign in with a passkey or from the dashboard.');
    $('password').value = '';
    show(true, 'Signed in.');
    await refresh();
  });
});

$('passkey-sign-in').addEventListener('click', () => {
  const button = $('passkey-sign-in');
  void busy(button, async () => {
    const start = await call('POST', '/auth/passkey/options');
    if (!start.ok) return show(false, detail(start));
    const response = await startAuthentication({ optionsJSON: start.data?.options as PublicKeyCredentialRequestOptionsJSON });
    const r = await call('POST', '/auth/passkey/login', { challenge_id: start.data?.challenge_id, response });
    if (!r.ok) return show(false, detail(r));
    show(true, 'Signed in with your passkey.');
    await refresh();
  });
});

$('add-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const button = $('add-submit');
  void busy(button, async () => {
    const start = await call('POST', '/api/account/passkeys/options');
    if (!start.ok) return show(false, detail(start));
    const response = await startRegistration({ optionsJSON: start.data as PublicKeyCredentialCreationOptionsJSON });
    const name = $('new-name').value.trim();
    const r = await call('POST', '/api/account/passkeys', name ? { response, name } : { response });
    if (!r.ok) return show(false, detail(r));
    $('new-name').value = '';
    show(true, `Passkey "${String(r.data?.name)}" added.`);
    await refresh();
  });
});

$('list').addEventListener('click', (event) => {
  const button = event.target as Elem;
  const action = button.dataset?.action;
  const li = button.closest?.('li');
  const id = li?.dataset.id;
  if (!action || !li || !id) return;
  void busy(button, async () => {
    const path = `/api/account/passkeys/${encodeURIComponent(id)}`;
    const r =
      action === 'rename'
        ? await call('PATCH', path, { name: li.querySelector('input')?.value ?? '' })
        : await call('DELETE', path);
    if (!r.ok) return show(false, detail(r));
    show(true, action === 'rename' ? 'Passkey renamed.' : 'Passkey removed.');
    await refresh();
  });
});

$('sign-out').addEventListener('click', () => {
  void busy($('sign-out'), async () => {
    await call('POST', '/auth/logout');
    show(true, 'Signed out.');
    await refresh();
  });
});

refresh().catch(() => show(false, 'The service could not be reached. Try again.'));
