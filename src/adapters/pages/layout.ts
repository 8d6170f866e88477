// The small first-party pages behind the email links (used when APP_URL is this server). No
// third-party anything: one stylesheet inline, one same-origin script, a strict CSP, and no
// Referer, since the link's token is in the URL.
import { escapeHtml } from '../../infra/html/escape.js';

export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
} as const;

export function page(opts: { serviceName: string; title: string; flow: string; body: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(opts.title)} · ${escapeHtml(opts.serviceName)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#1f2328;line-height:1.5}
h1{font-size:1.4rem}label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{margin-top:1rem;padding:.6rem 1.2rem;font-size:1rem;cursor:pointer}
#result{margin-top:1rem;padding:.75rem;border-radius:6px}#result:empty{display:none}
.ok{background:#dafbe1;color:#116329}.error{background:#ffebe9;color:#82071e}
</style>
</head>
<body data-flow="${escapeHtml(opts.flow)}">
<h1>${escapeHtml(opts.title)}</h1>
${opts.body}
<p id="result" role="status" aria-live="polite"></p>
<noscript><p class="error">This page needs JavaScript to talk to the service.</p></noscript>
<script src="/assets/link-pages.js"></script>
</body>
</html>
`;
}
