// GET /passkeys: a small first-party page to sign in with a passkey (or a password) and to add,
// rename and remove the account's passkeys, until the dashboard does it. Same rules as the link
// pages (layout.ts): no third-party anything, a strict CSP, one same-origin script. That script,
// /assets/passkeys.js, is src/adapters/pages/assets/passkeys.ts bundled with
// @simplewebauthn/browser (PASSKEYS_BUNDLE in ../browser-bundle.ts).
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../../infra/html/escape.js';
import { browserBundle, PASSKEYS_BUNDLE } from '../browser-bundle.js';
import { INLINE_STYLE_PAGE_HEADERS as PAGE_HEADERS } from './layout.js';

const passkeysBundle = browserBundle(PASSKEYS_BUNDLE);

export function passkeysPage(serviceName: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Passkeys · ${escapeHtml(serviceName)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1f2328;line-height:1.5}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.5rem}label{display:block;margin:.75rem 0 .25rem}
input{padding:.5rem;font-size:1rem;box-sizing:border-box}form input{width:100%}
button{margin:.5rem .5rem 0 0;padding:.5rem 1rem;font-size:1rem;cursor:pointer}
ul{list-style:none;padding:0}li{border:1px solid #d0d7de;border-radius:6px;padding:.5rem .75rem;margin:.5rem 0}
li input{width:14rem}li small{display:block;color:#59636e}
#result{margin-top:1rem;padding:.75rem;border-radius:6px}#result:empty{display:none}
.ok{background:#dafbe1;color:#116329}.error{background:#ffebe9;color:#82071e}
</style>
</head>
<body>
<h1>Passkeys</h1>
<section id="signed-out" hidden>
<p>A passkey signs you in without a password: your device checks that it is you (fingerprint, face or PIN).</p>
<button id="passkey-sign-in" type="button">Sign in with a passkey</button>
<h2>Or sign in with your password</h2>
<form id="password-form">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button id="password-submit" type="submit">Sign in</button>
</form>
</section>
<section id="signed-in" hidden>
<p>Signed in as <strong id="who"></strong>. <button id="sign-out" type="button">Sign out</button></p>
<h2>Your passkeys</h2>
<p id="none">No passkey yet.</p>
<ul id="list"></ul>
<form id="add-form">
<label for="new-name">Name of the new passkey (optional)</label><input id="new-name" name="name" maxlength="64" placeholder="e.g. Work laptop">
<button id="add-submit" type="submit">Add a passkey</button>
</form>
</section>
<p id="result" role="status" aria-live="polite"></p>
<noscript><p class="error">This page needs JavaScript for passkeys.</p></noscript>
<script src="/assets/passkeys.js"></script>
</body>
</html>
`;
}

export function registerPasskeysPage(app: FastifyInstance, opts: { serviceName: string }): void {
  const html = passkeysPage(opts.serviceName);
  app.get('/passkeys', async (_req, reply) => reply.headers(PAGE_HEADERS).send(html));
  app.get('/assets/passkeys.js', async (_req, reply) =>
    reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(await passkeysBundle('passkeys.js')),
  );
}
