// What a person's browser meets at an address the API host does not have: a mistyped console URL
// gets the "page not found" page (pages/not-found-page.ts) with a way home, not a JSON problem,
// and /status (which lives on the zone host) is redirected there. Only for a browser asking for a
// page (GET or HEAD, `Accept` preferring text/html, as /status decides): API clients, and any path
// under the API's own prefixes, keep the problem+json 404.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { PAGE_HEADERS } from '../pages/layout.js';
import { notFoundPage } from '../pages/not-found-page.js';
import { wantsHtml } from '../edge/status/views.js';

/** Where JSON is the language whoever asks: a browser there is a developer reading answers. */
const API_PREFIXES = ['/api/', '/auth/', '/internal/', '/oauth/', '/graphql', '/.well-known/', '/openapi.json', '/metrics', '/readyz'];

export interface BrowserNotFoundOptions {
  serviceName: string;
  /** The console's address (APP_URL): the page's way home. */
  appUrl: string;
  /** `<scheme of BASE_URL>://<ZONE>[:port]`, where /status lives. */
  zoneOrigin: string;
}

/**
 * The API host's not-found answer for browsers, or undefined to leave it to the problem+json 404.
 * /status (and what is under it) answers 302 to the same path on the zone host, `Vary: Accept`,
 * never cached: a temporary redirect, since the zone is configuration.
 */
export function browserNotFound(opts: BrowserNotFoundOptions): (req: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined {
  const home = opts.appUrl.endsWith('/') ? opts.appUrl : `${opts.appUrl}/`;
  return (req, reply) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !wantsHtml(req.headers.accept)) return undefined;
    let url: URL;
    try {
      url = new URL(req.url, 'http://host.invalid');
    } catch {
      return undefined;
    }
    const path = url.pathname;
    if (path === '/status' || path.startsWith('/status/')) {
      return reply.status(302).headers({ location: `${opts.zoneOrigin}${path}${url.search}`, vary: 'Accept', 'cache-control': 'no-store' }).send();
    }
    if (API_PREFIXES.some((p) => path === p || path.startsWith(p))) return undefined;
    return reply
      .status(404)
      .headers({ ...PAGE_HEADERS, vary: 'Accept' })
      .send(notFoundPage(opts.serviceName, home, decodeURIComponentSafe(path)));
  };
}

/** The path as the person typed it (`%20` shown as a space), or as sent when it is not valid UTF-8. */
function decodeURIComponentSafe(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
