// GraphiQL from local assets: Yoga's default page loads its scripts and styles from a CDN (so it
// hangs offline and breaks any CSP). @graphql-yoga/render-graphiql carries the same GraphiQL
// build (script, stylesheet and the Monaco editor workers) in the package; its own page inlines
// them, which a strict CSP forbids, so this page links them as same-origin files instead and
// starts GraphiQL from a same-origin script. The 9 MB asset module is loaded on first use only.
// A small stylesheet of this project's own stacks the editors above the result on a phone (the
// package lays them side by side at every width, which left the result one character wide).
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { GraphiQLOptions } from 'graphql-yoga';
import { escapeHtml } from '../../infra/html/escape.js';

export const GRAPHIQL_ASSETS = '/assets/graphiql';

/** The page's policy: scripts, workers and the stylesheet from this origin only; no eval. Monaco
 * sets element styles at run time, hence 'unsafe-inline' for styles (never for scripts). */
export const GRAPHIQL_CSP =
  "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self' data:; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Yoga's `renderGraphiQL`: the page, with the options as a JSON data block (not a script). */
export function renderLocalGraphiQL(opts: GraphiQLOptions = {}): string {
  const json = JSON.stringify(opts).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(opts.title ?? 'GraphiQL')}</title>
<link rel="stylesheet" href="${GRAPHIQL_ASSETS}/graphiql.css">
<link rel="stylesheet" href="${GRAPHIQL_ASSETS}/narrow.css">
<script id="graphiql-options" type="application/json">${json}</script>
<script src="${GRAPHIQL_ASSETS}/graphiql.js" defer></script>
<script src="${GRAPHIQL_ASSETS}/boot.js" defer></script>
</head>
<body id="body" class="no-focus-outline">
<noscript>GraphiQL needs JavaScript.</noscript>
<div id="root"></div>
</body>
</html>
`;
}

// Same as the package's inline start-up script, reading the options from the data block and
// pointing Monaco at same-origin worker files instead of blob: URLs.
const BOOT = `(function () {
  var workers = { editorWorkerService: 'editor', json: 'json', graphql: 'graphql' };
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) { return '${GRAPHIQL_ASSETS}/worker-' + (workers[label] || 'editor') + '.js'; },
  };
  var opts = JSON.parse(document.getElementById('graphiql-options').textContent || '{}');
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), opts);
})();
`;

/**
 * Below 48rem the session's editors and its result stack in one column that scrolls, each as
 * wide as the page; the resize handle between them goes (it resizes sideways). GraphiQL sets the
 * panes' flex inline as they are dragged, hence !important.
 */
const NARROW_CSS = `@media (max-width: 47.99rem) {
  .graphiql-container .graphiql-sessions { margin: 8px 8px 8px 0; min-width: 0; }
  .graphiql-container .graphiql-session-header .graphiql-logo { display: none; }
  .graphiql-container .graphiql-sessions > div:last-child { flex-direction: column !important; overflow-y: auto; min-width: 0; }
  .graphiql-container .graphiql-sessions > div:last-child > .graphiql-editors { flex: none !important; height: 62vh; min-height: 18rem; min-width: 0; }
  .graphiql-container .graphiql-sessions > div:last-child > .graphiql-horizontal-drag-bar { display: none; }
  .graphiql-container .graphiql-sessions > div:last-child > .graphiql-response { flex: none !important; height: 55vh; min-height: 14rem; min-width: 0; padding-top: 8px; }
}
`;

type AssetModule = typeof import('@graphql-yoga/render-graphiql/graphiql');
let assets: Promise<AssetModule> | null = null;
const load = () => (assets ??= import('@graphql-yoga/render-graphiql/graphiql'));

const send = (reply: FastifyReply, type: string, body: string) =>
  reply.header('content-type', type).header('cache-control', 'public, max-age=3600').header('x-content-type-options', 'nosniff').send(body);

/** The files the page links; registered only where GraphiQL is on (not in production). */
export function registerGraphiQLAssets(app: FastifyInstance): void {
  const JS = 'text/javascript; charset=utf-8';
  app.get(`${GRAPHIQL_ASSETS}/graphiql.css`, async (_req, reply) => send(reply, 'text/css; charset=utf-8', (await load()).css));
  app.get(`${GRAPHIQL_ASSETS}/narrow.css`, async (_req, reply) => send(reply, 'text/css; charset=utf-8', NARROW_CSS));
  app.get(`${GRAPHIQL_ASSETS}/graphiql.js`, async (_req, reply) => send(reply, JS, (await load()).js));
  app.get(`${GRAPHIQL_ASSETS}/boot.js`, async (_req, reply) => send(reply, JS, BOOT));
  app.get(`${GRAPHIQL_ASSETS}/worker-editor.js`, async (_req, reply) => send(reply, JS, (await load()).editorWorkerService));
  app.get(`${GRAPHIQL_ASSETS}/worker-json.js`, async (_req, reply) => send(reply, JS, (await load()).jsonWorker));
  app.get(`${GRAPHIQL_ASSETS}/worker-graphql.js`, async (_req, reply) => send(reply, JS, (await load()).graphqlWorker));
}
