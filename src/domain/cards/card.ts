// The Server Card (SPEC 2.5, SEP-2127): built only from the tunnel record and its pinned tool
// names, never from an MCP session. Rendered once into bytes with every header, so the hot path
// only writes them.
import { createHash } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import type { Config } from '../../infra/config.js';
import { tunnelLabel } from '../tunnels/names.js';

export interface CardTunnel {
  id: string;
  subdomain: string;
  slug: string;
  customDomain: string | null;
  discoverable: boolean;
  pinnedTools: string[];
}

/**
 * A rendered card: the body, a strong ETag, and the headers of a 200 and of a 304. The body is a
 * string on purpose: node then sends head and body in one write instead of a two-buffer writev.
 */
export interface RenderedCard {
  kind: 'card';
  tunnelId: string;
  body: string;
  etag: string;
  ok: OutgoingHttpHeaders;
  notModified: OutgoingHttpHeaders;
}

export type CardConfig = Pick<Config, 'cardSchemaUrl' | 'serviceName' | 'zone'>;

export const CARD_MAX_AGE_SECONDS = 600;

/** The card JSON for a request on `host` (the default tunnel host or the custom domain). */
export function cardJson(config: CardConfig, tunnel: CardTunnel, host: string): string {
  const label = tunnelLabel(tunnel.subdomain, tunnel.slug);
  const onCustomDomain = tunnel.customDomain !== null && host === tunnel.customDomain;
  return JSON.stringify({
    $schema: config.cardSchemaUrl,
    name: `io.service/${onCustomDomain ? host : label}`,
    title: label,
    description: `An MCP server exposed via ${config.serviceName}.`,
    version: '1',
    capabilities: { tools: {} },
    tools: tunnel.pinnedTools.map((name) => ({ name })),
    remotes: [{ type: 'streamable-http', endpoint: `https://${host}/mcp` }],
    _meta: { 'io.service/served-by': config.serviceName, 'io.service/card-version': 1 },
  });
}

/** Headers every card answer carries (SPEC 4.3), 200 and 304 alike. */
const COMMON = {
  'cache-control': `public, max-age=${CARD_MAX_AGE_SECONDS}`,
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag',
  'x-content-type-options': 'nosniff',
} as const;

export function renderedCard(tunnelId: string, json: string): RenderedCard {
  const etag = `"${createHash('sha256').update(json).digest('base64url').slice(0, 32)}"`;
  return {
    kind: 'card',
    tunnelId,
    body: json,
    etag,
    ok: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json), etag, ...COMMON },
    notModified: { etag, ...COMMON },
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
