// A roll-up rendered once per refresh into the exact bytes and headers /status and the badges
// answer with, so serving a cached roll-up is a lookup and a write. The page also shows the
// history, so it is rendered again when a newer history is loaded.
import { badgeEndpoint, badgeFace, badgeSvg } from './badges.js';
import type { History } from './history.js';
import { renderStatusPage } from './page.js';
import { COMPONENTS, type ComponentName, type Rollup } from './rollup.js';

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
  /** /status/badge.svg (overall) and /status/<component>/badge.svg, always 200. */
  badges: Record<'overall' | ComponentName, Rendered>;
  /** /status/badge.json: the shields.io endpoint object. */
  badgeJson: Rendered;
}

// A monitor must see the live verdict, never an intermediary's copy; the body depends on Accept.
const COMMON = ['cache-control', 'no-store', 'vary', 'Accept', 'x-content-type-options', 'nosniff'];
// The page has no scripts, and says so to the browser: inline styles only.
const HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// Badges are embedded by READMEs through image proxies (GitHub's camo): no-cache makes them
// revalidate every time. Public data: any origin may read the JSON ones.
const BADGE_COMMON = ['cache-control', 'no-cache', 'x-content-type-options', 'nosniff'];
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";
const PUBLIC_JSON = ['access-control-allow-origin', '*', 'x-content-type-options', 'nosniff'];

function renderHtml(rollup: Rollup, serviceName: string, history: History | null): Rendered {
  const html = renderStatusPage(rollup, serviceName, history);
  return {
    body: html,
    headers: ['content-type', 'text/html; charset=utf-8', 'content-length', String(Buffer.byteLength(html)), 'content-security-policy', HTML_CSP, ...COMMON],
  };
}

function renderBadge(svg: string): Rendered {
  return {
    body: svg,
    headers: ['content-type', 'image/svg+xml; charset=utf-8', 'content-length', String(Buffer.byteLength(svg)), 'content-security-policy', SVG_CSP, ...BADGE_COMMON],
  };
}

export function renderSnapshot(rollup: Rollup, expiresAtMs: number, serviceName: string, history: History | null = null): Snapshot {
  const json = JSON.stringify(rollup);
  const badges = { overall: renderBadge(badgeSvg(badgeFace(rollup, 'overall'))) } as Snapshot['badges'];
  for (const name of COMPONENTS) badges[name] = renderBadge(badgeSvg(badgeFace(rollup, name)));
  const endpoint = JSON.stringify(badgeEndpoint(badgeFace(rollup, 'overall')));
  return {
    rollup,
    expiresAtMs,
    statusCode: rollup.status === 'ok' ? 200 : 503,
    json: {
      body: json,
      headers: ['content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(json)), ...COMMON],
    },
    html: renderHtml(rollup, serviceName, history),
    badges,
    badgeJson: {
      body: endpoint,
      headers: ['content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(endpoint)), 'cache-control', 'no-cache', ...PUBLIC_JSON],
    },
  };
}

/** The same snapshot with its page showing a newer history. */
export function withHistory(snapshot: Snapshot, serviceName: string, history: History): Snapshot {
  return { ...snapshot, html: renderHtml(snapshot.rollup, serviceName, history) };
}

/** GET /status/history's answer. */
export function renderHistory(history: History): Rendered {
  const body = JSON.stringify(history);
  return {
    body,
    headers: ['content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(body)), 'cache-control', 'no-cache', ...PUBLIC_JSON],
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
