// GET /status/feed.atom on the zone host (API.md section 17): an Atom feed (RFC 4287) with one
// entry per incident update and per maintenance, newest first, at most 50, for feed readers and
// chat integrations. Read from the database at most every few seconds per instance, like
// /status/incidents.
import { feedEntries, type FeedEntry } from '../../../domain/status/incidents.js';
import type { Db } from '../../../domain/store.js';
import { SERVER_FAULT, TEXT, type RawPaths } from '../../openapi-paths.js';
import { keptFor } from './kept.js';
import type { Rendered } from './views.js';

const KEEP_MS = 5_000;
const STATUS_WORD: Record<string, string> = { investigating: 'Investigating', identified: 'Identified', monitoring: 'Monitoring', resolved: 'Resolved' };

/** XML text: the five escapes, and no character XML 1.0 forbids (C0 controls but tab, LF, CR). */
export function xmlText(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '') // eslint-disable-line no-control-regex -- removing them is the point
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function entryXml(e: FeedEntry, pageUrl: string): string {
  const title = e.kind === 'incident' ? `${e.title}: ${STATUS_WORD[e.status] ?? e.status}` : `Planned maintenance: ${e.title}`;
  const window = e.window ? `\nFrom ${e.window.startsAt.toISOString()} to ${e.window.endsAt.toISOString()}.` : '';
  const body = `${e.message}${window}\nAffected: ${e.components.join(', ')}.`;
  return (
    `<entry><id>urn:uuid:${xmlText(e.id)}</id><title>${xmlText(title)}</title><updated>${e.at.toISOString()}</updated>` +
    `<link rel="alternate" type="text/html" href="${xmlText(pageUrl)}"/><category term="${e.kind}"/>` +
    `<content type="text">${xmlText(body)}</content></entry>`
  );
}

export function renderFeed(entries: readonly FeedEntry[], opts: { serviceName: string; pageUrl: string; feedUrl: string; now: Date }): Rendered {
  const updated = entries[0]?.at ?? opts.now;
  const body =
    `<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">` +
    `<id>${xmlText(opts.feedUrl)}</id><title>${xmlText(opts.serviceName)} status</title><updated>${updated.toISOString()}</updated>` +
    `<author><name>${xmlText(opts.serviceName)}</name></author>` +
    `<link rel="self" type="application/atom+xml" href="${xmlText(opts.feedUrl)}"/><link rel="alternate" type="text/html" href="${xmlText(opts.pageUrl)}"/>` +
    entries.map((e) => entryXml(e, opts.pageUrl)).join('') +
    `</feed>\n`;
  return {
    body,
    headers: {
      'content-type': 'application/atom+xml; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      'cache-control': 'no-cache',
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
    },
  };
}

export function statusFeed(deps: { db: Db; clock: () => Date }, opts: { serviceName: string; pageUrl: string; feedUrl: string }): () => Promise<Rendered> {
  return keptFor(KEEP_MS, deps.clock, (now) => feedEntries(deps).then((entries) => renderFeed(entries, { ...opts, now })));
}

export const feedPaths: RawPaths = {
  '/status/feed.atom': {
    host: 'zone',
    get: {
      operationId: 'getStatusFeed',
      summary: 'An Atom feed (RFC 4287): one entry per incident update and per maintenance, newest first, at most 50.',
      tags: ['Status'],
      security: [],
      responses: { '200': { description: 'The feed.', content: { 'application/atom+xml': TEXT } }, '5XX': SERVER_FAULT },
    },
  },
};
