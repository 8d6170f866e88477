// The human face of /status: a static page (no scripts) with the verdict, checked_at and one row
// per component with a green "ok" or red "down" marker. Sized for a phone first.
import type { Rollup } from './rollup.js';
import { escapeHtml } from '../../infra/html/escape.js';

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#f6f8fa}
main{max-width:40rem;margin:0 auto;padding:1.25rem 1rem}
h1{font-size:1.5rem;margin:0 0 .25rem}
.verdict{padding:1rem;border-radius:.5rem;color:#fff;margin:0 0 .75rem}
.verdict.ok{background:#1a7f37}.verdict.degraded{background:#cf222e}
.checked{color:#59636e;margin:0 0 1rem;font-size:.9rem}
table{width:100%;border-collapse:collapse;background:#fff;border-radius:.5rem;overflow:hidden}
th,td{text-align:left;padding:.75rem;border-bottom:1px solid #d1d9e0;vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:#59636e}
tr:last-child td{border-bottom:0}
td.detail{word-break:break-word;color:#59636e;font-size:.9rem}
.marker{display:inline-block;min-width:3.5rem;text-align:center;padding:.125rem .5rem;border-radius:1rem;color:#fff;font-weight:600}
.marker.ok{background:#1a7f37}.marker.down{background:#cf222e}
`;

export function renderStatusPage(rollup: Rollup, serviceName: string): string {
  const ok = rollup.status === 'ok';
  const down = rollup.components.filter((c) => !c.ok).map((c) => c.name);
  const verdict = ok ? 'All systems operational' : `Degraded: ${down.join(' and ')} down`;
  const rows = rollup.components
    .map(
      (c) =>
        `<tr data-component="${escapeHtml(c.name)}"><td class="name">${escapeHtml(c.name)}</td>` +
        `<td><span class="marker ${c.ok ? 'ok' : 'down'}">${c.ok ? 'ok' : 'down'}</span></td>` +
        `<td class="detail">${escapeHtml(c.detail)}</td></tr>`,
    )
    .join('');
  const name = escapeHtml(serviceName);
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${ok ? 'Operational' : 'Degraded'} · ${name} status</title><style>${STYLE}</style></head>` +
    `<body><main><h1>${name} status</h1>` +
    `<p class="verdict ${rollup.status}" data-status="${rollup.status}">${verdict}</p>` +
    `<p class="checked">Checked at <time datetime="${rollup.checked_at}">${rollup.checked_at}</time></p>` +
    `<table><thead><tr><th scope="col">Component</th><th scope="col">Status</th><th scope="col">Detail</th></tr></thead>` +
    `<tbody>${rows}</tbody></table></main></body></html>`
  );
}
