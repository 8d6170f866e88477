// Statuspage summary hot path: GET /api/v2/summary.json on the zone host (rendered once per
// roll-up, served as pre-rendered bytes, polled by aggregators and monitors like /status) against
// a bare node:http server answering the same bytes and headers, measured in the same run.
import type { BenchResult } from '../lib.js';
import { statusSuite } from './status.js';

export default function statusSummary(): Promise<BenchResult> {
  return statusSuite({
    path: '/api/v2/summary.json',
    label: 'Statuspage summary',
    body: 'JSON body (rendered once per roll-up)',
    check: ({ body }) => (!body.includes('"indicator"') ? 'is not a Statuspage summary' : null),
  });
}
