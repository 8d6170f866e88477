// GET /verify-email, /reset-password, /confirm-email-change, /link-account, /mfa: each completes its flow through the
// public REST API and says what happened. Opening a page changes nothing by itself (link
// scanners fetch URLs); verification runs from the page's script or its button.
import type { FastifyInstance } from 'fastify';
import type { PendingLinkSummary } from '../../domain/sso/pending-link.js';
import { escapeHtml } from '../../infra/html/escape.js';
import { PAGE_HEADERS, page } from './layout.js';

// The same-origin script of every link page. Reads the token, strips it from the address bar,
// posts to the API, and shows the outcome.
const SCRIPT = `(() => {
  const flow = document.body.dataset.flow;
  const token = new URLSearchParams(location.search).get('token') || '';
  history.replaceState(null, '', location.pathname);
  const result = document.getElementById('result');
  const show = (ok, text) => { result.className = ok ? 'ok' : 'error'; result.textContent = text; document.getElementById('pending')?.remove(); };
  const post = async (path, body) => {
    const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    let data = null;
    try { data = await res.json(); } catch { data = null; }
    return { ok: res.ok, status: res.status, data };
  };
  const fail = (r) => show(false, (r.data && r.data.detail) || 'Something went wrong (' + r.status + ').');
  if (!token) { show(false, 'This link is missing its token. Open the link from the email again.'); return; }
  if (flow === 'link-account' && !document.querySelector('form')) return;
  const form = document.querySelector('form');
  const run = async (action) => {
    const button = form && form.querySelector('button');
    if (button) button.disabled = true;
    try { await action(); } catch { show(false, 'The service could not be reached. Try again.'); }
    if (button) button.disabled = false;
  };
  if (flow === 'verify-email') {
    run(async () => {
      const r = await post('/auth/verify-email', { token });
      r.ok ? show(true, 'Your email is verified. You can close this page.') : fail(r);
    });
  } else if (flow === 'confirm-email-change') {
    form.addEventListener('submit', (e) => { e.preventDefault(); run(async () => {
      const r = await post('/auth/confirm-email-change', { token });
      if (r.ok) { show(true, 'Your email is now ' + r.data.email + '.'); form.hidden = true; } else fail(r);
    }); });
  } else if (flow === 'reset-password') {
    form.addEventListener('submit', (e) => { e.preventDefault(); run(async () => {
      const pw = form.elements.namedItem('new_password').value;
      const again = form.elements.namedItem('confirm_password').value;
      if (pw !== again) { show(false, 'The two passwords differ.'); return; }
      const r = await post('/auth/reset-password', { token, new_password: pw });
      if (r.ok) { show(true, 'Your password is set. Every session was signed out; sign in again with the new password.'); form.hidden = true; } else fail(r);
    }); });
  } else if (flow === 'mfa') {
    form.addEventListener('submit', (e) => { e.preventDefault(); run(async () => {
      const code = form.elements.namedItem('code').value;
      const r = await post('/auth/mfa/verify', { mfa_token: token, code });
      if (r.ok) { show(true, 'You are signed in.'); form.hidden = true; } else fail(r);
    }); });
  } else if (flow === 'link-account' && form) {
    form.addEventListener('submit', (e) => { e.preventDefault(); run(async () => {
      const password = form.elements.namedItem('password').value;
      const r = await post('/auth/oauth/confirm-link', { token, password });
      if (r.ok) { show(true, 'The accounts are linked and you are signed in.'); form.hidden = true; } else fail(r);
    }); });
  }
})();
`;

export interface LinkPage {
  path: string;
  flow: string;
  title: string;
  body: string;
}

export const LINK_PAGES: LinkPage[] = [
  { path: '/verify-email', flow: 'verify-email', title: 'Verify your email', body: '<p id="pending">Checking your link…</p>' },
  {
    path: '/confirm-email-change',
    flow: 'confirm-email-change',
    title: 'Confirm your new email',
    body: '<form><p>Confirm to make this address the email of your account.</p><button type="submit">Confirm new email</button></form>',
  },
  {
    path: '/reset-password',
    flow: 'reset-password',
    title: 'Choose a new password',
    body:
      '<form><label for="new_password">New password (8 to 128 characters)</label>' +
      '<input id="new_password" name="new_password" type="password" minlength="8" maxlength="128" autocomplete="new-password" required>' +
      '<label for="confirm_password">Repeat it</label>' +
      '<input id="confirm_password" name="confirm_password" type="password" minlength="8" maxlength="128" autocomplete="new-password" required>' +
      '<button type="submit">Set password</button></form>',
  },
  {
    // The second step of a sign-in (SSO redirects here with the mfa_token).
    path: '/mfa',
    flow: 'mfa',
    title: 'Two-step sign-in',
    body:
      '<form><label for="code">Code from your authenticator app, or a recovery code</label>' +
      '<input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" maxlength="32" required autofocus>' +
      '<button type="submit">Sign in</button></form>',
  },
];

const PROVIDER_LABEL: Record<string, string> = { google: 'Google', github: 'GitHub' };

/** The link-account page names what would be linked, so a phished person sees whose identity it is. */
function linkAccountBody(link: PendingLinkSummary | null): string {
  if (!link) {
    return '<p class="error">This link is invalid, has expired or was already used. Sign in with the provider again.</p>';
  }
  const provider = escapeHtml(PROVIDER_LABEL[link.provider] ?? link.provider);
  return (
    `<form><p>You are about to link the <strong>${provider}</strong> identity <strong>${escapeHtml(link.providerEmail)}</strong> ` +
    `to your account <strong>${escapeHtml(link.accountEmail)}</strong>. From then on, that ${provider} identity signs in to this account. ` +
    'If you did not start this sign-in yourself, close this page: nothing is linked until you enter your password.</p>' +
    '<label for="password">Password of your account</label>' +
    '<input id="password" name="password" type="password" maxlength="128" autocomplete="current-password" required>' +
    '<button type="submit">Link and sign in</button></form>'
  );
}

export function registerLinkPages(
  app: FastifyInstance,
  opts: { serviceName: string; describePendingLink: (token: unknown) => Promise<PendingLinkSummary | null> },
  pages: LinkPage[] = LINK_PAGES,
): void {
  const { serviceName } = opts;
  app.get<{ Querystring: { token?: unknown } }>('/link-account', async (req, reply) => {
    const link = await opts.describePendingLink(req.query.token);
    const html = page({ serviceName, title: 'Link your sign-in provider', flow: 'link-account', body: linkAccountBody(link) });
    return reply.headers(PAGE_HEADERS).send(html);
  });
  app.get('/assets/link-pages.js', async (_req, reply) =>
    reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(SCRIPT),
  );
  for (const p of pages) {
    const html = page({ serviceName, title: p.title, flow: p.flow, body: p.body });
    app.get(p.path, async (_req, reply) => reply.headers(PAGE_HEADERS).send(html));
  }
}
