// What /status, its badges and its history answer with, rendered from the domain's snapshot into
// exact bytes and headers. Rendered once per snapshot: the status service hands out the same
// snapshot object until it refreshes (or reads a newer history), so serving a cached roll-up is an
// identity check, a lookup and a write.
import type { z } from 'zod';
import type { History } from '../../../domain/status/history.js';
import { COMPONENTS, type ComponentName, type Rollup } from '../../../domain/status/rollup.js';
import type { Snapshot } from '../../../domain/status/service.js';
import { badgeEndpoint, badgeFace, badgeSvg } from './badges.js';
import { renderStatusPage } from './page.js';
import type { StatusRollup } from './schemas.js';
import { statuspageSummary } from './summary.js';

export interface Rendered {
  /** A string: node then sends head and body in one write instead of a two-chunk writev. */
  body: string;
  /** Every value a string, content-length included. */
  headers: Readonly<Record<string, string>>;
}

export interface SnapshotView {
  /** 200 when every component is ok, 503 otherwise (the body is complete either way). */
  statusCode: 200 | 503;
  json: Rendered;
  html: Rendered;
  /** /status/badge.svg (overall) and /status/<component>/badge.svg, always 200. */
  badges: Record<'overall' | ComponentName, Rendered>;
  /** /status/badge.json: the shields.io endpoint object. */
  badgeJson: Rendered;
  /** /api/v2/summary.json: Statuspage's summary format, always 200. */
  summary: Rendered;
}

// A monitor must see the live verdict, never an intermediary's copy; the body depends on Accept.
const COMMON = { 'cache-control': 'no-store', vary: 'Accept', 'x-content-type-options': 'nosniff' };
// The page has no scripts, and says so to the browser: inline styles only; its one form (email
// updates) posts to this host.
const HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

// Badges are embedded by READMEs through image proxies (GitHub's camo): no-cache makes them
// revalidate every time. Public data: any origin may read the JSON ones.
const BADGE_COMMON = { 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' };
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'";
const PUBLIC_JSON = { 'access-control-allow-origin': '*', 'x-content-type-options': 'nosniff' };

const length = (body: string): string => String(Buffer.byteLength(body));

function renderBadge(svg: string): Rendered {
  return { body: svg, headers: { 'content-type': 'image/svg+xml; charset=utf-8', 'content-length': length(svg), 'content-security-policy': SVG_CSP, ...BADGE_COMMON } };
}

function renderView(rollup: Rollup, serviceName: string, pageUrl: string, history: History | null): SnapshotView {
  const json = JSON.stringify(rollup satisfies z.infer<typeof StatusRollup>);
  const summary = JSON.stringify(statuspageSummary(rollup, serviceName, pageUrl));
  const html = renderStatusPage(rollup, serviceName, history);
  const badges = { overall: renderBadge(badgeSvg(badgeFace(rollup, 'overall'))) } as SnapshotView['badges'];
  for (const name of COMPONENTS) badges[name] = renderBadge(badgeSvg(badgeFace(rollup, name)));
  const endpoint = JSON.stringify(badgeEndpoint(badgeFace(rollup, 'overall')));
  return {
    statusCode: rollup.status === 'ok' ? 200 : 503,
    json: { body: json, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': length(json), ...COMMON } },
    html: { body: html, headers: { 'content-type': 'text/html; charset=utf-8', 'content-length': length(html), 'content-security-policy': HTML_CSP, ...COMMON } },
    badges,
    badgeJson: {
      body: endpoint,
      headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': length(endpoint), 'cache-control': 'no-cache', ...PUBLIC_JSON },
    },
    summary: { body: summary, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': length(summary), 'cache-control': 'no-cache', ...PUBLIC_JSON } },
  };
}

/** GET /status/history's answer. */
function renderHistory(history: History): Rendered {
  const body = JSON.stringify(history);
  return { body, headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': length(body), 'cache-control': 'no-cache', ...PUBLIC_JSON } };
}

export interface StatusViews {
  /** The view of a snapshot, rendered on its first request and kept while it is current. */
  of(snapshot: Snapshot): SnapshotView;
  history(history: History): Rendered;
}

/** One pair of single-entry memos per zone handler: snapshots replace each other, never alternate. */
/** `pageUrl`: the status page's address (`<scheme of BASE_URL>://<ZONE>[:port]/status`), for the summary. */
export function statusViews(serviceName: string, pageUrl = ''): StatusViews {
  let snap: Snapshot | null = null;
  let view: SnapshotView | null = null;
  let hist: History | null = null;
  let histView: Rendered | null = null;
  return {
    of(s) {
      if (s !== snap || view === null) {
        view = renderView(s.rollup, serviceName, pageUrl, s.history);
        snap = s;
      }
      return view;
    },
    history(h) {
      if (h !== hist || histView === null) {
        histView = renderHistory(h);
        hist = h;
      }
      return histView;
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
