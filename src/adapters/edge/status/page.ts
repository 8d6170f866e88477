// The human face of /status: a static page (no scripts) with the verdict, checked_at, one row per
// component with a green "ok" or red "down" marker (the probe's latency under it), then each component's
// uptimes (24 h, 7, 30, 90 days) and a 90-day strip drawn as inline SVG (one bar per UTC day,
// oldest on the left, each with a <title> naming the day, its uptime and its checks). Sized for a
// phone first: the strip scales to the width of the page. GET /status/incidents answers people
// with a page in the same look: each incident of the last 90 days with every update.
import type { ComponentHistory, DayEntry, History, UptimeWindow } from '../../../domain/status/history.js';
import type { IncidentJson, MaintenanceJson } from '../../../domain/status/notices.js';
import { downComponents, isUnconfigured, type Rollup } from '../../../domain/status/rollup.js';
import { escapeHtml } from '../../../infra/html/escape.js';

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f8fa}
main{max-width:40rem;margin:0 auto;padding:1.25rem 1rem}
h1{font-size:1.5rem;margin:0 0 .25rem}
h2{font-size:1.125rem;margin:1.5rem 0 .5rem}
.verdict{padding:1rem;border-radius:.5rem;color:#fff;margin:0 0 .75rem}
.verdict.ok{background:#1a7f37}.verdict.degraded{background:#cf222e}
.checked{color:#59636e;margin:0 0 1rem;font-size:.9rem}
table{width:100%;border-collapse:collapse;background:#fff;border-radius:.5rem;overflow:hidden}
th,td{text-align:left;padding:.625rem .5rem;border-bottom:1px solid #d1d9e0;vertical-align:top}
th{font-size:.75rem;text-transform:uppercase;letter-spacing:.04em;color:#59636e}
tr:last-child td{border-bottom:0}
td.detail{word-break:break-word;color:#59636e;font-size:.9rem}
.latency{display:block;margin-top:.25rem;white-space:nowrap;font-variant-numeric:tabular-nums;color:#59636e;font-size:.8rem;text-align:center;min-width:3.25rem;width:max-content}
.marker{display:inline-block;min-width:3.25rem;text-align:center;padding:.125rem .5rem;border-radius:1rem;color:#fff;font-weight:600}
.marker.ok{background:#1a7f37}.marker.down{background:#cf222e}
.component{background:#fff;border-radius:.5rem;padding:.75rem;margin:0 0 .75rem}
.component h3{font-size:1rem;margin:0 0 .5rem;display:flex;justify-content:space-between;gap:.5rem;flex-wrap:wrap}
.component h3 .total{font-weight:400;color:#59636e;font-size:.9rem}
.strip{display:block;width:100%;height:2.25rem}
.axis{display:flex;justify-content:space-between;color:#59636e;font-size:.75rem;margin:.125rem 0 .5rem}
.uptimes{display:grid;grid-template-columns:repeat(4,1fr);gap:.25rem .5rem;margin:0}
.uptimes div{min-width:0}
.uptimes dt{font-size:.75rem;color:#59636e}
.uptimes dd{margin:0;font-variant-numeric:tabular-nums;font-weight:600;font-size:.875rem}
.legend{color:#59636e;font-size:.8rem;display:flex;flex-wrap:wrap;gap:.25rem .75rem;margin:.5rem 0 0;padding:0;list-style:none}
.swatch{display:inline-block;width:.7rem;height:.7rem;border-radius:2px;margin-right:.25rem;vertical-align:-.05rem}
.notice{background:#fff;border-radius:.5rem;padding:.75rem;margin:0 0 .75rem;border-left:.375rem solid #d4a72c}
.notice.major,.notice.critical{border-left-color:#cf222e}.notice.maintenance{border-left-color:#0969da}
.notice h3{font-size:1rem;margin:0 0 .25rem;overflow-wrap:anywhere}
.notice p{margin:.25rem 0;overflow-wrap:anywhere}
.notice .meta{color:#59636e;font-size:.85rem}
.subscribe{background:#fff;border-radius:.5rem;padding:.75rem;margin:1.5rem 0 0}
.subscribe form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.subscribe input{font:inherit;flex:1 1 12rem;min-width:0;padding:.375rem .5rem;border:1px solid #8c959f;border-radius:.375rem}
.subscribe button{font:inherit;font-weight:600;padding:.375rem .875rem;border-radius:.375rem;border:1px solid #0a58b0;background:#0a58b0;color:#fff;cursor:pointer}
.subscribe button:hover{background:#084a94;border-color:#084a94}
.links{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin:1.5rem 0 0;padding:0;list-style:none;font-size:.9rem}
a{color:#0a58b0}
.timeline{list-style:none;margin:.5rem 0 0;padding:0 0 0 .75rem;border-left:2px solid #d1d9e0}
.timeline li{margin:0 0 .5rem}.timeline time{color:#59636e;font-size:.85rem}.timeline p{margin:.125rem 0 0}
.tag{display:inline-block;font-size:.75rem;font-weight:600;padding:0 .4rem;border-radius:1rem;background:#eaeef2;color:#1f2328;margin-right:.25rem}
`;

/** Bar colours: no failure, some (at least 99 % up), more, nothing measured. */
export const STRIP_COLORS = { full: '#1a7f37', partial: '#d4a72c', poor: '#cf222e', none: '#d1d9e0' } as const;

export function stripColor(uptime: number | null): string {
  if (uptime === null) return STRIP_COLORS.none;
  if (uptime >= 100) return STRIP_COLORS.full;
  return uptime >= 99 ? STRIP_COLORS.partial : STRIP_COLORS.poor;
}

const WINDOWS: readonly [UptimeWindow, string][] = [
  ['24h', '24 hours'],
  ['7d', '7 days'],
  ['30d', '30 days'],
  ['90d', '90 days'],
];

const percent = (u: number | null): string => (u === null ? '—' : `${u.toFixed(2)}%`);

const BAR_W = 3;
const BAR_STEP = 4;
const BAR_H = 36;

function dayTitle(d: DayEntry): string {
  if (d.uptime === null) return `${d.date}: no data`;
  const failed = d.failures === 0 ? 'none failed' : `${d.failures} failed`;
  return `${d.date}: ${percent(d.uptime)} up (${d.checks} checks, ${failed})`;
}

function strip(c: ComponentHistory): string {
  const width = c.days.length * BAR_STEP - (BAR_STEP - BAR_W);
  const bars = c.days
    .map(
      (d, i) =>
        `<rect x="${i * BAR_STEP}" width="${BAR_W}" height="${BAR_H}" fill="${stripColor(d.uptime)}" data-date="${d.date}">` +
        `<title>${escapeHtml(dayTitle(d))}</title></rect>`,
    )
    .join('');
  return (
    `<svg class="strip" viewBox="0 0 ${width} ${BAR_H}" preserveAspectRatio="none" role="img" ` +
    `aria-label="${escapeHtml(c.name)}: uptime per day over the last ${c.days.length} days" xmlns="http://www.w3.org/2000/svg">${bars}</svg>`
  );
}

function componentHistory(c: ComponentHistory): string {
  const name = escapeHtml(c.name);
  const uptimes = WINDOWS.map(([w, label]) => `<div><dt>${label}</dt><dd data-window="${w}">${percent(c.uptime[w])}</dd></div>`).join('');
  return (
    `<div class="component" data-component="${name}"><h3><span>${name}</span>` +
    `<span class="total">${percent(c.uptime['90d'])} over 90 days</span></h3>${strip(c)}` +
    `<div class="axis" aria-hidden="true"><span>${c.days.length} days ago</span><span>today</span></div>` +
    `<dl class="uptimes">${uptimes}</dl></div>`
  );
}

function historySection(history: History | null): string {
  const legend =
    `<ul class="legend">` +
    `<li><span class="swatch" style="background:${STRIP_COLORS.full}"></span>no failed check</li>` +
    `<li><span class="swatch" style="background:${STRIP_COLORS.partial}"></span>99% or more</li>` +
    `<li><span class="swatch" style="background:${STRIP_COLORS.poor}"></span>below 99%</li>` +
    `<li><span class="swatch" style="background:${STRIP_COLORS.none}"></span>no data</li></ul>`;
  const body = history ? history.components.map(componentHistory).join('') + legend : `<p class="checked">History is not available yet.</p>`;
  return `<section class="history" aria-labelledby="history"><h2 id="history">Uptime</h2>${body}</section>`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number): string => String(n).padStart(2, '0');

/** "27 Nov 2026, 06:20:53 UTC": the page is read by people; the datetime attribute keeps RFC 3339. */
export function readableUtc(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} UTC`;
}

/** Email updates (API.md section 17): a plain form, no script; the answer is a small page. */
const SUBSCRIBE =
  `<section class="subscribe" aria-labelledby="subscribe"><h2 id="subscribe">Get updates by email</h2>` +
  `<form method="post" action="/status/subscribe"><label for="subscribe-email">Email address</label>` +
  `<input id="subscribe-email" type="email" name="email" required autocomplete="email" maxlength="254">` +
  `<button type="submit">Subscribe</button></form>` +
  `<p class="checked">Incidents, their updates and planned maintenance. Every email has a one-click unsubscribe link.</p></section>`;

const IMPACT: Record<string, string> = { minor: 'Minor', major: 'Major', critical: 'Critical' };
const STATUS: Record<string, string> = { investigating: 'Investigating', identified: 'Identified', monitoring: 'Monitoring', resolved: 'Resolved' };

const time = (iso: string): string => `<time datetime="${escapeHtml(iso)}">${escapeHtml(readableUtc(iso))}</time>`;

function incidentNotice(i: IncidentJson): string {
  const latest = i.updates[0];
  return (
    `<article class="notice ${escapeHtml(i.impact)}" data-incident="${escapeHtml(i.id)}"><h3>${escapeHtml(i.title)}</h3>` +
    `<p><span class="tag">${escapeHtml(STATUS[i.status] ?? i.status)}</span><span class="tag">${escapeHtml(IMPACT[i.impact] ?? i.impact)} impact</span>` +
    `<span class="meta">${escapeHtml(i.components.join(', '))}</span></p>` +
    (latest ? `<p>${escapeHtml(latest.message)}</p><p class="meta">Updated ${time(latest.at)}</p>` : '') +
    `</article>`
  );
}

function maintenanceNotice(m: MaintenanceJson): string {
  return (
    `<article class="notice maintenance" data-maintenance="${escapeHtml(m.id)}"><h3>${escapeHtml(m.title)}</h3>` +
    `<p>${m.active ? '<span class="tag">Under way</span>' : '<span class="tag">Planned</span>'}<span class="meta">${escapeHtml(m.components.join(', '))}</span></p>` +
    `<p class="meta">${time(m.starts_at)} to ${time(m.ends_at)}</p><p>${escapeHtml(m.message)}</p></article>`
  );
}

/** Open incidents, then maintenance under way or within 7 days (nothing when there is neither). */
function noticesSection(rollup: Rollup): string {
  const incidents = rollup.incidents ?? [];
  const maintenances = rollup.maintenances ?? [];
  const parts: string[] = [];
  if (incidents.length > 0) parts.push(`<section aria-labelledby="incidents"><h2 id="incidents">Incidents</h2>${incidents.map(incidentNotice).join('')}</section>`);
  if (maintenances.length > 0) {
    parts.push(`<section aria-labelledby="maintenance"><h2 id="maintenance">Planned maintenance</h2>${maintenances.map(maintenanceNotice).join('')}</section>`);
  }
  return parts.join('');
}

/** The page's links to the other views of the zone. */
const LINKS =
  `<ul class="links"><li><a href="/status">Current status</a></li><li><a href="/status/incidents">Past incidents</a></li>` +
  `<li><a href="/status/feed.atom">Atom feed</a></li></ul>`;

const head = (title: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
  `<meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<title>${title}</title><style>${STYLE}</style></head>`;

/** One incident of the 90-day list: its title, impact, components and every update, newest first. */
function incidentRecord(i: IncidentJson): string {
  const updates = i.updates
    .map((u) => `<li><span class="tag">${escapeHtml(STATUS[u.status] ?? u.status)}</span>${time(u.at)}<p>${escapeHtml(u.message)}</p></li>`)
    .join('');
  const span = i.resolved_at ? `${time(i.created_at)} to ${time(i.resolved_at)}` : `Since ${time(i.created_at)}`;
  return (
    `<article class="notice ${escapeHtml(i.impact)}" data-incident="${escapeHtml(i.id)}"><h3>${escapeHtml(i.title)}</h3>` +
    `<p><span class="tag">${escapeHtml(STATUS[i.status] ?? i.status)}</span><span class="tag">${escapeHtml(IMPACT[i.impact] ?? i.impact)} impact</span>` +
    `<span class="meta">${escapeHtml(i.components.join(', '))}</span></p><p class="meta">${span}</p>` +
    `<ol class="timeline" aria-label="Updates, newest first">${updates}</ol></article>`
  );
}

/** GET /status/incidents for people (`Accept: text/html`): the last 90 days in the status page's look. */
export function renderIncidentsPage(incidents: readonly IncidentJson[], serviceName: string): string {
  const name = escapeHtml(serviceName);
  const body = incidents.length > 0 ? incidents.map(incidentRecord).join('') : `<p class="checked">No incidents in the last 90 days.</p>`;
  return (
    `${head(`Past incidents · ${name} status`)}<body><main><h1>${name} status</h1>` +
    `<h2 id="incidents">Incidents of the last 90 days</h2><section aria-labelledby="incidents">${body}</section>${LINKS}</main></body></html>`
  );
}

export function renderStatusPage(rollup: Rollup, serviceName: string, history: History | null = null): string {
  const down = downComponents(rollup);
  // The HTTP code follows the roll-up's status (503 with an unconfigured component); the words
  // and colours follow what is down: an unconfigured component is named, not shown as an outage.
  const ok = down.length === 0;
  const unconfigured = rollup.components.filter(isUnconfigured).map((c) => c.name);
  const open = (rollup.incidents ?? []).length;
  // The checks decide the verdict (the seed's contract); an open incident is named beside it. A
  // component without a health URL is named as such, not as an outage.
  const operational = unconfigured.length === 0 ? 'All systems operational' : `All configured systems operational (${unconfigured.join(' and ')} not configured)`;
  const verdict = (ok ? operational : `Degraded: ${down.join(' and ')} down`) + (open > 0 ? ` · ${open} open incident${open === 1 ? '' : 's'} below` : '');
  const rows = rollup.components
    .map(
      (c) =>
        `<tr data-component="${escapeHtml(c.name)}"><td class="name">${escapeHtml(c.name)}</td>` +
        `<td><span class="marker ${c.ok ? 'ok' : 'down'}">${c.ok ? 'ok' : 'down'}</span>` +
        `<span class="latency" title="probe latency">${typeof c.latency_ms === 'number' ? `${c.latency_ms} ms` : '—'}</span></td>` +
        `<td class="detail">${escapeHtml(c.detail)}</td></tr>`,
    )
    .join('');
  const name = escapeHtml(serviceName);
  return (
    `${head(`${ok ? 'Operational' : 'Degraded'} · ${name} status`)}` +
    `<body><main><h1>${name} status</h1>` +
    `<p class="verdict ${ok ? 'ok' : 'degraded'}" data-status="${rollup.status}">${verdict}</p>` +
    `<p class="checked">Checked at <time datetime="${escapeHtml(rollup.checked_at)}">${escapeHtml(readableUtc(rollup.checked_at))}</time></p>` +
    noticesSection(rollup) +
    `<table><thead><tr><th scope="col">Component</th><th scope="col">Status</th><th scope="col">Detail</th></tr></thead>` +
    `<tbody>${rows}</tbody></table>${historySection(history)}${SUBSCRIBE}${LINKS}</main></body></html>`
  );
}
