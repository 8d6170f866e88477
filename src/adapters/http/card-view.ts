// A card as HTTP answers it (SPEC 4.3): the body, a strong ETag, and the header lists of a 200 and
// of a 304. Made once per card object: the resolver's in-process cache hands out the same object
// request after request, so a hit costs an identity check (a WeakMap lookup when hosts alternate).
import { createHash } from 'node:crypto';
import type { Card } from '../../domain/cards/card.js';

export const CARD_MAX_AGE_SECONDS = 600;

export interface CardView {
  /** A string on purpose: node then sends head and body in one write instead of a two-buffer writev. */
  body: string;
  etag: string;
  /** writeHead's flat list form (problem.ts, headerList). */
  ok: string[];
  notModified: string[];
}

/** Headers every card answer carries (SPEC 4.3), 200 and 304 alike. */
const COMMON = [
  'cache-control',
  `public, max-age=${CARD_MAX_AGE_SECONDS}`,
  'access-control-allow-origin',
  '*',
  'access-control-expose-headers',
  'ETag',
  'x-content-type-options',
  'nosniff',
];

export function renderCard(json: string): CardView {
  const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 32)}"`;
  return {
    body: json,
    etag,
    ok: ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(json)), 'etag', etag, ...COMMON],
    notModified: ['etag', etag, ...COMMON],
  };
}

/** The view of each card, made on its first request; one per handler set. */
export function cardViews(): (card: Card) => CardView {
  const views = new WeakMap<Card, CardView>();
  let lastCard: Card | null = null;
  let lastView: CardView | null = null;
  return (card) => {
    if (card === lastCard && lastView !== null) return lastView;
    let view = views.get(card);
    if (view === undefined) views.set(card, (view = renderCard(card.json)));
    lastCard = card;
    lastView = view;
    return view;
  };
}

/** If-None-Match (RFC 9110 13.1.2): `*` or a list of entity tags, compared weakly. */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch === etag) return true;
  for (const raw of ifNoneMatch.split(',')) {
    const tag = raw.trim();
    if (tag === '*' || tag === etag || (tag.startsWith('W/') && tag.slice(2) === etag)) return true;
  }
  return false;
}
