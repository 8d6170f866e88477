// The account console (issue 13): one HTML shell for every client-side route, its bundled script
// and stylesheet. Served on the API host when the origin of APP_URL is this server (the default:
// APP_URL defaults to BASE_URL), so email links, SSO redirects and `npm start` land on it. The
// console talks only to the public GraphQL API (and navigates to the REST OAuth start), so a
// dashboard hosted elsewhere could do exactly the same.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { escapeHtml } from '../../infra/html/escape.js';
import { browserBundle, CONSOLE_BUNDLE } from '../browser-bundle.js';

/** The client-side routes (src/adapters/console/client/main.ts), plus `/`. */
export const CONSOLE_ROUTES = ['/', '/sign-in', '/sign-up', '/forgot-password', '/mfa', '/account', '/security', '/tunnels', '/tokens', '/webhooks', '/device', '/oauth/consent', '/invitations/accept', '/orgs/new'] as const;

/** An organization's pages, at /orgs/<slug>/<page> (the client decides whether the slug is the caller's). */
export const CONSOLE_ORG_PAGES = ['tunnels', 'members', 'tokens', 'webhooks', 'audit', 'settings'] as const;

/** Strict: same-origin script and stylesheet only, no inline anything, no eval, no framing. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export const CONSOLE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': CONSOLE_CSP,
} as const;

/** `apiDocs`: GET /docs is served (API_DOCS), so the console may link to it. */
export function consoleShell(serviceName: string, apiDocs = false): string {
  const name = escapeHtml(serviceName);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="service-name" content="${name}">
${apiDocs ? '<meta name="api-docs" content="/docs">\n' : ''}<title>${name}</title>
<link rel="stylesheet" href="/assets/console.css">
<script type="module" src="/assets/console.js"></script>
</head>
<body>
<div id="app"><main id="main"><h1>${name}</h1><p>Loading your account…</p></main></div>
<noscript><p class="status error">The account console needs JavaScript.</p></noscript>
</body>
</html>
`;
}

const consoleBundle = browserBundle(CONSOLE_BUNDLE);

const asset = (reply: FastifyReply, type: string, body: string) =>
  reply
    .header('content-type', type)
    // Not content-hashed: short caching so a new deployment is picked up within minutes.
    .header('cache-control', 'public, max-age=300')
    .header('x-content-type-options', 'nosniff')
    .send(body);

/** The stylesheet is always served (the link pages use it); the shell only when `enabled`. */
export function registerConsole(app: FastifyInstance, opts: { serviceName: string; enabled: boolean; apiDocs?: boolean; extraRoutes?: readonly string[] }): void {
  app.get('/assets/console.css', async (_req, reply) => asset(reply, 'text/css; charset=utf-8', await consoleBundle('console.css')));
  if (!opts.enabled) return;
  app.get('/assets/console.js', async (_req, reply) => asset(reply, 'text/javascript; charset=utf-8', await consoleBundle('console.js')));
  const html = consoleShell(opts.serviceName, opts.apiDocs);
  for (const path of [...CONSOLE_ROUTES, ...CONSOLE_ORG_PAGES.map((page) => `/orgs/:slug/${page}`), ...(opts.extraRoutes ?? [])]) {
    app.get(path, async (_req, reply) => reply.headers(CONSOLE_HEADERS).send(html));
  }
}

/** Whether the dashboard (APP_URL) is this server: same origin as BASE_URL. */
export function consoleEnabled(config: { baseUrl: string; appUrl: string }): boolean {
  const app = new URL(config.appUrl);
  // A dashboard under a path prefix (APP_URL=https://api.example.com/dash) is not this console.
  return app.origin === new URL(config.baseUrl).origin && (app.pathname === '/' || app.pathname === '');
}
