// The small first-party pages behind the email links (used when APP_URL is this server). No
// third-party anything: the console's same-origin stylesheet, one same-origin script, a strict
// CSP, and no Referer, since the link's token is in the URL. They look like the account console
// (src/adapters/console) and link back to it.
import { escapeHtml } from '../../infra/html/escape.js';

const BASE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
} as const;

/** The link pages and the bad-state page: styles from the same-origin stylesheet only. */
export const PAGE_HEADERS = {
  ...BASE_HEADERS,
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
} as const;

/** For a page that still carries its own inline <style> (the standalone /passkeys page). */
export const INLINE_STYLE_PAGE_HEADERS = {
  ...BASE_HEADERS,
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
} as const;

/** The console's header bar and stylesheet around a page's content. */
export function frame(opts: { serviceName: string; title: string; body: string; bodyAttrs?: string; script?: string }): string {
  const service = escapeHtml(opts.serviceName);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(opts.title)} · ${service}</title>
<link rel="stylesheet" href="/assets/console.css">
</head>
<body${opts.bodyAttrs ?? ''}>
<header class="top"><div class="bar"><a class="brand" href="/">${service}</a></div></header>
<main class="page">
<h1>${escapeHtml(opts.title)}</h1>
${opts.body}
</main>
${opts.script ? `<script src="${escapeHtml(opts.script)}"></script>\n` : ''}</body>
</html>
`;
}

export function page(opts: { serviceName: string; title: string; flow: string; body: string }): string {
  return frame({
    serviceName: opts.serviceName,
    title: opts.title,
    bodyAttrs: ` data-flow="${escapeHtml(opts.flow)}"`,
    body:
      `${opts.body}\n<p id="result" role="status" aria-live="polite"></p>\n` +
      '<p class="links"><a href="/">Go to your account</a></p>\n' +
      '<noscript><p class="error">This page needs JavaScript to talk to the service.</p></noscript>',
    script: '/assets/link-pages.js',
  });
}
