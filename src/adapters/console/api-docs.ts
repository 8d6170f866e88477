// GET /docs (API.md section 16): the REST API reference, rendered in the browser by Redoc from
// /openapi.json. Like GraphiQL it works offline: Redoc's standalone bundle is served from the
// package on this origin (no CDN, no web fonts), under a CSP that allows nothing from elsewhere.
// Off in production unless API_DOCS=true.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../../infra/html/escape.js';

export const API_DOCS_ASSETS = '/assets/api-docs';

/** Scripts from this origin only, no eval. Redoc sets its styles at run time ('unsafe-inline' for
 *  styles, never for scripts) and runs its search index in a worker it creates from a blob. */
export const API_DOCS_CSP =
  "default-src 'none'; script-src 'self'; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; font-src 'self' data:; img-src 'self' data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

export function apiDocsPage(serviceName: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(serviceName)} REST API</title>
<script src="${API_DOCS_ASSETS}/redoc.standalone.js" defer></script>
<script src="${API_DOCS_ASSETS}/boot.js" defer></script>
</head>
<body>
<noscript>The API reference needs JavaScript; the document itself is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<div id="redoc"></div>
</body>
</html>
`;
}

// System fonts (Redoc's defaults name web fonts it would not find here), the document from this origin.
const BOOT = `(function () {
  var fonts = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Redoc.init('/openapi.json', {
    expandResponses: '200,201',
    theme: { typography: { fontFamily: fonts, headings: { fontFamily: fonts }, code: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace' } } },
  }, document.getElementById('redoc'));
})();
`;

const require = createRequire(import.meta.url);
let bundle: Promise<string> | null = null;
/** The one thing the bundle fetches from elsewhere: the "API docs by Redocly" logo. An empty
 *  `src` is never requested, and the component hides the image when it does not load. */
const REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

// Read on first use (1 MB); the source-map comment is dropped (the map is not served).
const redoc = () =>
  (bundle ??= readFile(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8').then((js) =>
    js.replaceAll(REMOTE_LOGO, '').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'),
  ));

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': API_DOCS_CSP,
} as const;

export function registerApiDocs(app: FastifyInstance, opts: { serviceName: string }): void {
  const html = apiDocsPage(opts.serviceName);
  const JS = 'text/javascript; charset=utf-8';
  app.get('/docs', async (_req, reply) => reply.headers(HEADERS).send(html));
  const script = (body: string) => ({ 'content-type': JS, 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff', body });
  app.get(`${API_DOCS_ASSETS}/redoc.standalone.js`, async (_req, reply) => {
    const { body, ...headers } = script(await redoc());
    return reply.headers(headers).send(body);
  });
  app.get(`${API_DOCS_ASSETS}/boot.js`, async (_req, reply) => {
    const { body, ...headers } = script(BOOT);
    return reply.headers(headers).send(body);
  });
}
