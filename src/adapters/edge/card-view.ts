// A card's documents as HTTP answers them (SPEC 4.3, API.md section 14): the body, a strong ETag,
// and the headers of a 200 and of a 304, for the seed card, the v1 card and the AI Catalog.
// Made once per card object: the resolver's in-process cache hands out the same object request
// after request, so a hit costs an identity check (a WeakMap lookup when hosts alternate).
import { createHash } from 'node:crypto';
import { CATALOG_MEDIA_TYPE, V1_CARD_MEDIA_TYPE, type Card } from '../../domain/cards/card.js';
import type { CardDocument } from './hosts.js';

export const CARD_MAX_AGE_SECONDS = 600;

export interface CardView {
  /** A string on purpose: node then sends head and body in one write instead of a two-buffer writev. */
  body: string;
  etag: string;
  ok: Readonly<Record<string, string>>;
  notModified: Readonly<Record<string, string>>;
}

/** Headers every card answer carries (SPEC 4.3), 200 and 304 alike. */
const COMMON = {
  'cache-control': `public, max-age=${CARD_MAX_AGE_SECONDS}`,
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag',
  'x-content-type-options': 'nosniff',
};

export function renderDocument(json: string, contentType: string): CardView {
  const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 32)}"`;
  return {
    body: json,
    etag,
    ok: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(json)), etag, ...COMMON },
    notModified: { etag, ...COMMON },
  };
}

export type CardViewSet = Readonly<Record<Exclude<CardDocument, 'prm'>, CardView>>;

/** Every document of a card, ready to write. */
export const renderCard = (card: Card): CardViewSet => ({
  seed: renderDocument(card.json, 'application/json'),
  v1: renderDocument(card.v1, V1_CARD_MEDIA_TYPE),
  catalog: renderDocument(card.catalog, CATALOG_MEDIA_TYPE),
});

/** The views of each card, made on its first request; one memo per handler set. */
export function cardViews(): (card: Card) => CardViewSet {
  const views = new WeakMap<Card, CardViewSet>();
  let lastCard: Card | null = null;
  let lastViews: CardViewSet | null = null;
  return (card) => {
    if (card === lastCard && lastViews !== null) return lastViews;
    let set = views.get(card);
    if (set === undefined) views.set(card, (set = renderCard(card)));
    lastCard = card;
    lastViews = set;
    return set;
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
