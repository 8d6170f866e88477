// A roll-up rendered once per refresh into the exact bytes and headers /status answers with, so
// serving a cached roll-up is a lookup and a write.
import { renderStatusPage } from './page.js';
import type { Rollup } from './rollup.js';

export interface Rendered {
  /** A string: node then sends head and body in one write instead of a two-chunk writev. */
  body: string;
  /**
   * writeHead's flat list form, `[name, value, …]`: node's loop over a headers object is shared
   * with every Fastify reply and probe request in the process and runs megamorphic there; the
   * list loop stays monomorphic on the hot path.
   */
  headers: string[];
}

export interface Snapshot {
  rollup: Rollup;
  /** Injected-clock time (ms) after which the roll-up must be refreshed. */
  expiresAtMs: number;
  /** 200 when every component is ok, 503 otherwise (the body is complete either way). */
  statusCode: 200 | 503;
  json: Rendered;
  html: Rendered;
}

// A monitor must see the live verdict, never an intermediary's copy; the body depends on Accept.
const COMMON = ['cache-control', 'no-store', 'vary', 'Accept', 'x-content-type-options', 'nosniff'];
// The page has no scripts, and says so to the browser: inline styles only.
const HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function renderSnapshot(rollup: Rollup, expiresAtMs: number, serviceName: string): Snapshot {
  const json = JSON.stringify(rollup);
  const html = renderStatusPage(rollup, serviceName);
  return {
    rollup,
    expiresAtMs,
    statusCode: rollup.status === 'ok' ? 200 : 503,
    json: {
      body: json,
      headers: ['content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(json)), ...COMMON],
    },
    html: {
      body: html,
      headers: [
        'content-type',
        'text/html; charset=utf-8',
        'content-length',
        String(Buffer.byteLength(html)),
        'content-security-policy',
        HTML_CSP,
        ...COMMON,
      ],
    },
  };
}

/**
 * HTML only when the client asks for text/html and does not prefer JSON (browsers do; monitors
 * sending `*` or application/json get JSON, as does a missing Accept).
 */
export function wantsHtml(accept: string | undefined): boolean {
  if (accept === undefined || !accept.includes('text/html')) return false;
  let html = -1;
  let json = -1;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    const weight = Number.isFinite(q) ? q : 0;
    if (type.trim() === 'text/html') html = Math.max(html, weight);
    else if (type.trim() === 'application/json') json = Math.max(json, weight);
  }
  return html > 0 && html >= json;
}
