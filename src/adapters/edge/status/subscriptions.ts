// Status subscriptions on the zone host (API.md section 17), in the raw zone handler:
// - POST /status/subscribe: JSON (section 3's rules: an Origin must be allowed) → 202 whatever the
//   address; or the status page's own script-free form (form-encoded, Origin the zone origin) →
//   a small HTML page. Limited per network (429).
// - GET /status/subscribe/confirm?token=…: the double opt-in link (24 hours, once). Opening it only
//   shows a page with a Confirm button (mail scanners open links, and a GET never changes
//   anything); the button POSTs the token in a form body to the same path, which confirms. That
//   POST is refused from any other Origin than the zone's (no cross-site request changes state):
//   the page sends its origin as referrer (`strict-origin`, so the browser sends the Origin header,
//   which `no-referrer` would turn into `null`), never its path or token.
// - GET /status/unsubscribe?token=…: a page with an Unsubscribe button (a GET never changes
//   anything: mail scanners open links); POST to the same URL unsubscribes at once, from any
//   Origin and without signing in (RFC 8058 one-click, `List-Unsubscribe=One-Click`).
// Pages carry a token in their URL: no path or token leaves them as a referrer, nothing caches them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { AppError, badRequest, forbidden, internalError, PROBLEMS } from '../../../domain/errors.js';
import type { ClientInfo } from '../../../domain/context.js';
import { isWellFormedToken } from '../../../infra/crypto/tokens.js';
import { escapeHtml } from '../../../infra/html/escape.js';
import { rawHeader } from '../hosts.js';
import { writeProblem } from '../../problem.js';
import { page as pageAnswer, problem, queryParameter, RETRY_AFTER, SERVER_FAULT, type RawPaths } from '../../openapi-paths.js';

export interface SubscriptionDepsForZone {
  subscribe(email: unknown, client: ClientInfo): Promise<void>;
  confirm(token: unknown): Promise<boolean>;
  unsubscribe(token: unknown): Promise<boolean>;
  /** The zone host's origin: the only Origin the page's form posts from. */
  zoneOrigin: string;
  /** ALLOWED_ORIGINS: who may post JSON from a browser. */
  allowedOrigins: ReadonlySet<string>;
  clientIp(req: IncomingMessage): string;
  serviceName: string;
  /** BASE_URL, under which problem types live. */
  baseUrl: string;
}

export const SUBSCRIBE_PATH = '/status/subscribe';
export const CONFIRM_PATH = '/status/subscribe/confirm';
export const UNSUBSCRIBE_PATH = '/status/unsubscribe';
const PATHS = new Set([SUBSCRIBE_PATH, CONFIRM_PATH, UNSUBSCRIBE_PATH]);

/** Bodies here are an address or a one-click marker: a few hundred bytes at most. */
const BODY_LIMIT = 8 * 1024;

const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
const PAGE_STYLE =
  'body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f8fa}' +
  'main{max-width:32rem;margin:0 auto;padding:1.5rem 1rem}h1{font-size:1.375rem}' +
  'button{font:inherit;padding:.5rem 1rem;border-radius:.375rem;border:1px solid #1f2328;background:#1f2328;color:#fff;cursor:pointer}a{color:#0969da}';

/**
 * A small page. `referrer`: `no-referrer` unless the page holds a form whose POST must carry its
 * Origin (a form navigation under `no-referrer` sends `Origin: null`); `strict-origin` still sends
 * no path, so the token in the page's URL never leaves it.
 */
function page(res: ServerResponse, status: number, serviceName: string, title: string, paragraphs: string[], extra = '', referrer: 'no-referrer' | 'strict-origin' = 'no-referrer'): number {
  const body =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeHtml(title)} · ${escapeHtml(serviceName)} status</title><style>${PAGE_STYLE}</style></head><body><main>` +
    `<h1>${escapeHtml(title)}</h1>${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('')}${extra}` +
    `<p><a href="/status">Back to the status page</a></p></main></body></html>`;
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
    'referrer-policy': referrer,
    'content-security-policy': PAGE_CSP,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
  });
  res.end(body);
  return status;
}

class TooLarge extends Error {}

/**
 * The request body as text, at most BODY_LIMIT bytes. Past it, TooLarge at once; the rest is not
 * kept, and the 413 closes the connection (so nothing more is read).
 */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > BODY_LIMIT) {
        chunks.length = 0;
        reject(new TooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const mediaType = (req: IncomingMessage) => (rawHeader(req, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
const tokenOf = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://zone').searchParams.get('token');
const methodNotAllowed = (res: ServerResponse, allow: string, baseUrl: string) =>
  writeProblem(res, badRequest(PROBLEMS.methodNotAllowed, `Only ${allow} are allowed here.`), baseUrl, { allow });

/** The body as text, or the status of the 413 answered instead. */
async function bodyOr413(req: IncomingMessage, res: ServerResponse, baseUrl: string): Promise<string | number> {
  try {
    return await readBody(req);
  } catch (err) {
    if (err instanceof TooLarge) return writeProblem(res, badRequest(PROBLEMS.bodyTooLarge, 'The body is too large.'), baseUrl, { connection: 'close' });
    throw err;
  }
}

async function subscribe(deps: SubscriptionDepsForZone, req: IncomingMessage, res: ServerResponse): Promise<number> {
  const type = mediaType(req);
  const origin = rawHeader(req, 'origin');
  const form = type === 'application/x-www-form-urlencoded';
  if (!form && type !== 'application/json') return writeProblem(res, badRequest(PROBLEMS.unsupportedMediaType, 'Send the address as application/json.'), deps.baseUrl);
  // The page's own form posts from the zone origin only; JSON follows section 3's Origin rule.
  if (form ? origin !== deps.zoneOrigin : origin !== undefined && !deps.allowedOrigins.has(origin)) {
    return writeProblem(res, forbidden(PROBLEMS.crossSiteRefused, 'Cross-site request refused: this origin may not subscribe here.'), deps.baseUrl);
  }
  const client: ClientInfo = { ip: deps.clientIp(req), userAgent: rawHeader(req, 'user-agent') ?? '' };
  const text = await bodyOr413(req, res, deps.baseUrl);
  if (typeof text === 'number') return text;
  let email: unknown;
  if (form) {
    email = new URLSearchParams(text).get('email') ?? '';
  } else {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return writeProblem(res, badRequest(PROBLEMS.invalidJson, 'The body is not valid JSON.'), deps.baseUrl);
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return writeProblem(res, badRequest(PROBLEMS.bodyNotObject, 'The request body must be a JSON object.'), deps.baseUrl);
    email = (json as Record<string, unknown>).email;
  }
  try {
    await deps.subscribe(email, client);
  } catch (err) {
    const e = err instanceof AppError ? err : internalError();
    if (!form) return writeProblem(res, e, deps.baseUrl);
    return page(res, e.status, deps.serviceName, e.code === 'RATE_LIMITED' ? 'Too many requests' : 'That did not work', [e.message]);
  }
  if (!form) {
    res.writeHead(202, { 'content-length': '0', 'cache-control': 'no-store' });
    res.end();
    return 202;
  }
  return page(res, 200, deps.serviceName, 'Check your inbox', [
    'If this address can be subscribed, a confirmation link is on its way to it. Updates start once you open the link (it works for 24 hours).',
  ]);
}

const linkDoesNotWork = (res: ServerResponse, serviceName: string) =>
  page(res, 400, serviceName, 'This link does not work', ['It is unknown, already used or more than 24 hours old. Ask again from the status page.']);

/** GET /status/subscribe/confirm?token=…: the Confirm button (the token goes in the form's body). */
function confirmPage(deps: SubscriptionDepsForZone, token: string | null, res: ServerResponse): number {
  // Nothing is looked up: a link that is well formed gets the button, and the POST says whether it works.
  if (!isWellFormedToken(token)) return linkDoesNotWork(res, deps.serviceName);
  return page(
    res,
    200,
    deps.serviceName,
    'Confirm your subscription',
    [
      `Emails about incidents and planned maintenance on the ${deps.serviceName} status page will come to the address this link was sent to.`,
      'If you did not ask for them, close this page: nothing is sent without the confirmation.',
    ],
    `<form method="post" action="${CONFIRM_PATH}"><input type="hidden" name="token" value="${escapeHtml(token)}"><button type="submit">Confirm the subscription</button></form>`,
    'strict-origin',
  );
}

/**
 * POST /status/subscribe/confirm: the page's button. The token (form body, or the link's query
 * for a client without the page) is the credential; the Origin must still be the zone's when
 * present, like every state-changing request of the server (API.md section 3).
 */
async function confirm(deps: SubscriptionDepsForZone, req: IncomingMessage, res: ServerResponse): Promise<number> {
  const origin = rawHeader(req, 'origin');
  if (origin !== undefined && origin !== deps.zoneOrigin) return writeProblem(res, forbidden(PROBLEMS.crossSiteRefused, 'Cross-site request refused: confirm from the page the link opens.'), deps.baseUrl);
  const text = await bodyOr413(req, res, deps.baseUrl);
  if (typeof text === 'number') return text;
  const token = (mediaType(req) === 'application/x-www-form-urlencoded' ? new URLSearchParams(text).get('token') : null) ?? tokenOf(req);
  return (await deps.confirm(token))
    ? page(res, 200, deps.serviceName, 'You are subscribed', ['Incident updates and planned maintenance will come to this address. Every email has a link to unsubscribe.'])
    : linkDoesNotWork(res, deps.serviceName);
}

/**
 * Answers a subscription path (a promise of the status written), or returns null for any other
 * path so the zone handler goes on.
 */
export function subscriptionHandler(deps: SubscriptionDepsForZone): (req: IncomingMessage, res: ServerResponse, path: string, method: string) => Promise<number> | null {
  return (req, res, path, method) => {
    if (!PATHS.has(path)) return null;
    const readable = method === 'GET' || method === 'HEAD';
    if (path === SUBSCRIBE_PATH) return method === 'POST' ? subscribe(deps, req, res) : Promise.resolve(methodNotAllowed(res, 'POST', deps.baseUrl));
    if (path === CONFIRM_PATH) {
      // Opening the link (GET, or a link checker's HEAD) shows the button and changes nothing.
      if (readable) return Promise.resolve(confirmPage(deps, tokenOf(req), res));
      if (method !== 'POST') return Promise.resolve(methodNotAllowed(res, 'GET, HEAD and POST', deps.baseUrl));
      return confirm(deps, req, res);
    }
    // The unsubscribe link.
    const token = tokenOf(req);
    if (readable) {
      const action = `${UNSUBSCRIBE_PATH}?token=${encodeURIComponent(token ?? '')}`;
      return Promise.resolve(
        page(res, 200, deps.serviceName, 'Unsubscribe from status updates?', ['No more incident or maintenance emails will come to this address.'], `<form method="post" action="${escapeHtml(action)}"><button type="submit">Unsubscribe</button></form>`),
      );
    }
    if (method !== 'POST') return Promise.resolve(methodNotAllowed(res, 'GET, HEAD and POST', deps.baseUrl));
    // One click: any Origin, any body (List-Unsubscribe=One-Click, or the page's empty form).
    return readBody(req)
      .catch(() => '')
      .then(() => deps.unsubscribe(token))
      .then((done) =>
        done
          ? page(res, 200, deps.serviceName, 'You are unsubscribed', ['No more status emails will come to this address. You can subscribe again from the status page at any time.'])
          : page(res, 200, deps.serviceName, 'Nothing to unsubscribe', ['This link is not subscribed (it may have been used already).']),
      );
  };
}

// What the paths read (the address and the token are checked by the domain, with its own answers).
const SubscribeJson = z.object({ email: z.string().max(254).meta({ format: 'email' }) });
const SubscribeForm = z.object({ email: z.string() });
const TokenForm = z.object({ token: z.string().optional() });
const token = z.string();
const BODY_OVER_8K = problem('The body is over 8 KiB.');

export const statusSubscriptionPaths: RawPaths = {
  [SUBSCRIBE_PATH]: {
    host: 'zone',
    post: {
      operationId: 'subscribeToStatus',
      summary: 'Ask for incident and maintenance emails: a confirmation link is sent (double opt-in). The same answer whoever is subscribed.',
      tags: ['Status'],
      security: [],
      requestBody: {
        required: true,
        // The form: the status page's own (Origin: the zone origin), answered with a page.
        content: { 'application/json': SubscribeJson, 'application/x-www-form-urlencoded': SubscribeForm },
      },
      responses: {
        '200': pageAnswer("The status page's form: a page saying a link is on its way."),
        '202': { description: 'Accepted (JSON): a confirmation link goes out if the address can be subscribed.' },
        '400': problem('Not an email address, or not JSON.'),
        '403': problem('A JSON request from an Origin not in ALLOWED_ORIGINS, or a form not from the zone origin.'),
        '413': BODY_OVER_8K,
        '415': problem('Neither application/json nor the form encoding.'),
        '429': problem('Too many requests from this network.', RETRY_AFTER),
        '5XX': SERVER_FAULT,
      },
    },
  },
  [CONFIRM_PATH]: {
    host: 'zone',
    get: {
      operationId: 'showStatusSubscriptionConfirm',
      summary: 'The double opt-in link (24 hours, once) in a browser: a page with a Confirm button (a GET changes nothing: mail scanners open links).',
      tags: ['Status'],
      security: [],
      parameters: [queryParameter('token', token, true)],
      responses: { '200': pageAnswer('The page, its form carrying the token.'), '400': pageAnswer('Not a link token (a page).') },
    },
    post: {
      operationId: 'confirmStatusSubscription',
      summary: "The page's Confirm button: confirms the subscription its token names. Origin the zone origin, or none.",
      tags: ['Status'],
      security: [],
      parameters: [queryParameter('token', token.meta({ description: 'When the body carries none.' }))],
      requestBody: { required: false, content: { 'application/x-www-form-urlencoded': TokenForm } },
      responses: {
        '200': pageAnswer('Subscribed (a page).'),
        '400': pageAnswer('Unknown, used or expired link (a page).'),
        '403': problem('An Origin other than the zone origin (a cross-site form).'),
        '413': BODY_OVER_8K,
      },
    },
  },
  [UNSUBSCRIBE_PATH]: {
    host: 'zone',
    get: {
      operationId: 'showStatusUnsubscribe',
      summary: 'The List-Unsubscribe link in a browser: a page with an Unsubscribe button (a GET changes nothing).',
      tags: ['Status'],
      security: [],
      parameters: [queryParameter('token', token, true)],
      responses: { '200': pageAnswer('The page.') },
    },
    post: {
      operationId: 'unsubscribeFromStatus',
      summary: 'One-click unsubscribe (RFC 8058): any Origin, any body (List-Unsubscribe=One-Click), no sign-in.',
      tags: ['Status'],
      security: [],
      parameters: [queryParameter('token', token, true)],
      responses: { '200': pageAnswer('Unsubscribed, or nothing to unsubscribe (a page).') },
    },
  },
};
