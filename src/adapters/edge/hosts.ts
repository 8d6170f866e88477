// Host routing (API.md section 2): the zone host serves /status, `<label>.ZONE` hosts and custom
// domains serve the card paths, every other host is the API. These run on every request before
// anything else, so they read strings in place instead of splitting, lowercasing or matching
// regular expressions (each of those allocates).
import { V1_CARD_PATH } from '../../domain/cards/card.js';
import type { IncomingMessage } from 'node:http';

export type HostKind = 'zone' | 'tunnel' | 'api';

/** `name` equals `lowerName` (already lowercase ASCII) ignoring ASCII case, without a new string. */
function equalsLower(name: string, lowerName: string): boolean {
  if (name === lowerName) return true;
  const n = lowerName.length;
  if (name.length !== n) return false;
  for (let i = 0; i < n; i++) {
    let c = name.charCodeAt(i);
    if (c >= 65 && c <= 90) c |= 32;
    if (c !== lowerName.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * One request header read from rawHeaders (the first occurrence, names compared ignoring case):
 * on the raw hot paths (cards, status) nothing else is needed from the request's headers.
 * Header names are HTTP tokens (ASCII, checked by node's parser), so ASCII case folding is exact.
 */
export function rawHeader(req: IncomingMessage, lowerName: string): string | undefined {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (equalsLower(raw[i]!, lowerName)) return raw[i + 1];
  }
  return undefined;
}

/** True when `s` has an ASCII uppercase letter or any non-ASCII character (toLowerCase may change it). */
function mayHaveUpper(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 65 && c <= 90) || c > 127) return true;
  }
  return false;
}

/**
 * host[:port], where host is a name or [IPv6]: nothing else may be routed on (no @, /, spaces or
 * controls). One regular expression (compiled to native code) instead of a loop over characters:
 * measured cheaper on every hot request.
 */
const HOST_VALUE = /^(?:[A-Za-z0-9._-]*|\[[A-Za-z0-9._:-]*\])(?::[0-9]{0,5})?$/;

export function isValidHostValue(v: string): boolean {
  return v.length <= 262 && HOST_VALUE.test(v);
}

/** A header name is Host: the usual spellings first, then ASCII case folding. */
const isHostName = (name: string) => name.length === 4 && (name === 'Host' || name === 'host' || equalsLower(name, 'host'));

/**
 * The request's one Host line, not yet checked: null when there are several, or none in an
 * HTTP/1.1 request; '' for an HTTP/1.0 request without one (the API's). A request whose value is
 * null or fails isValidHostValue is refused with 400 (RFC 9112 §3.2); the listener (server.ts)
 * checks a value only when it differs from the last one that passed.
 */
export function singleHostOf(req: IncomingMessage): string | null {
  const raw = req.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (isHostName(raw[i]!)) {
      if (value !== undefined) return null;
      value = raw[i + 1]!;
    }
  }
  if (value === undefined) return req.httpVersionMajor === 1 && req.httpVersionMinor === 0 ? '' : null;
  return value;
}

/** The request's host name: the Host header without port (IPv6 keeps its brackets), lowercase, no trailing dot. */
export function hostnameOf(req: IncomingMessage): string {
  return hostnameFrom(rawHeader(req, 'host') ?? '');
}

export function hostnameFrom(raw: string): string {
  if (raw === '') return '';
  let end: number;
  if (raw.charCodeAt(0) === 91 /* [ */) {
    end = raw.indexOf(']') + 1; // 0 without a closing bracket: no host name
  } else {
    const colon = raw.indexOf(':');
    end = colon === -1 ? raw.length : colon;
  }
  let host = end === raw.length ? raw : raw.slice(0, end);
  if (mayHaveUpper(host)) host = host.toLowerCase();
  return host.charCodeAt(host.length - 1) === 46 /* . */ ? host.slice(0, -1) : host;
}

/** `<label>.zone` with a non-empty label holding no dot. */
function isTunnelHost(hostname: string, zone: string): boolean {
  const dot = hostname.length - zone.length - 1;
  return dot > 0 && hostname.charCodeAt(dot) === 46 /* . */ && hostname.endsWith(zone) && hostname.indexOf('.') === dot;
}

export function classifyHost(hostname: string, zone: string): HostKind {
  if (hostname === zone) return 'zone';
  return isTunnelHost(hostname, zone) ? 'tunnel' : 'api';
}

export const CARD_PATH = '/.well-known/mcp/server-card.json';
export const CARD_PATH_LEGACY = '/.well-known/mcp-server-card.json';
/** API.md section 14: the domain's AI Catalog (the v1 card's path is the domain's V1_CARD_PATH). */
export const CATALOG_PATH = '/.well-known/ai-catalog.json';

/** API.md section 13: an `oauth` tunnel's RFC 9728 metadata, for its /mcp and at the root. */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
export const PROTECTED_RESOURCE_MCP_PATH = '/.well-known/oauth-protected-resource/mcp';

/** Which document a card path asks for: a card's (`seed`, `v1`, `catalog`) or the protected resource metadata (`prm`). */
export type CardDocument = 'seed' | 'v1' | 'catalog' | 'prm';

const CARD_PATHS: ReadonlyMap<string, CardDocument> = new Map([
  [CARD_PATH, 'seed'],
  [CARD_PATH_LEGACY, 'seed'],
  [V1_CARD_PATH, 'v1'],
  [CATALOG_PATH, 'catalog'],
  [PROTECTED_RESOURCE_MCP_PATH, 'prm'],
  [PROTECTED_RESOURCE_PATH, 'prm'],
]);

/** The document a card path asks for (query string ignored), or null for any other path. */
export function cardDocumentOf(url: string | undefined): CardDocument | null {
  if (url === undefined) return null;
  if (url === CARD_PATH) return 'seed';
  const q = url.indexOf('?');
  return CARD_PATHS.get(q === -1 ? url : url.slice(0, q)) ?? null;
}

/** One of the card paths (query string ignored). */
export const isCardPath = (url: string | undefined): boolean => cardDocumentOf(url) !== null;

/** The path without the query string. */
export function pathOf(url: string | undefined): string {
  const u = url ?? '/';
  const q = u.indexOf('?');
  return q === -1 ? u : u.slice(0, q);
}

