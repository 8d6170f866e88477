// Status badge hot path: GET /status/badge.svg on the zone host (the badge-maker SVG, rendered
// when the roll-up changes, served as pre-rendered bytes) against a bare node:http server
// answering the same bytes and headers, measured in the same run, beside the cached /status suite.
import type { BenchResult } from '../lib.js';
import { statusSuite } from './status.js';

export default function statusBadge(): Promise<BenchResult> {
  return statusSuite({
    path: '/status/badge.svg',
    label: 'status badge',
    body: 'SVG (badge-maker, rendered once per distinct verdict)',
    check: ({ headers, body }) =>
      !body.startsWith('<svg') ? 'is not an SVG' : headers['cache-control'] !== 'no-cache' ? `sends Cache-Control ${headers['cache-control']}` : null,
  });
}
