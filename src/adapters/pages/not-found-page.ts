// The page a person's browser gets at an address the API host does not have (a mistyped console
// URL): "page not found" in the console's look, the path repeated as text, and a way home. When it
// is served: http/browser-not-found.ts.
import { escapeHtml } from '../../infra/html/escape.js';
import { frame } from './layout.js';

/** How much of a mistyped path the page repeats. */
const SHOWN_PATH_MAX = 120;

export function notFoundPage(serviceName: string, appUrl: string, path: string): string {
  const shown = path.length > SHOWN_PATH_MAX ? `${path.slice(0, SHOWN_PATH_MAX)}…` : path;
  return frame({
    serviceName,
    title: 'Page not found',
    body:
      `<p>There is no page at <code>${escapeHtml(shown)}</code>. The address may be mistyped, or the page has moved.</p>\n` +
      `<p class="links"><a class="button" href="${escapeHtml(appUrl)}">Go to your account</a></p>`,
  });
}

