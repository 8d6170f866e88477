// The Server Card (SPEC 2.5, SEP-2127): built only from the tunnel record and its pinned tool
// names, never from an MCP session. Two generations are served side by side (API.md section 14):
// the seed's card as SEP-2127 was drafted, and the current draft's v1 card with the domain's AI
// Catalog pointing at it. Beside them, on the host of an `oauth` tunnel, its RFC 9728 protected
// resource metadata (API.md section 13), from the same lookup and cache entry. Every document is
// made once per cache entry; the HTTP adapter adds their ETags and headers, also once per entry.
import type { Config } from '../../infra/config.js';
import { tunnelLabel } from '../tunnels/names.js';

export interface CardTunnel {
  id: string;
  subdomain: string;
  slug: string;
  customDomain: string | null;
  discoverable: boolean;
  pinnedTools: string[];
  /** public or oauth (API.md section 13). */
  access: string;
}

/**
 * A discoverable tunnel's card as served on one host. The cache hands out the same object for
 * every request on that host until it is invalidated or expires.
 */
export interface Card {
  readonly kind: 'card';
  readonly tunnelId: string;
  /** The seed's card (/.well-known/mcp/server-card.json and the legacy path), serialised. */
  readonly json: string;
  /** The v1 card (/mcp/server-card), valid against shared/sep-2127/schema.json. */
  readonly v1: string;
  /** The AI Catalog (/.well-known/ai-catalog.json) listing the v1 card. */
  readonly catalog: string;
  /** The protected resource metadata (RFC 9728) of an `oauth` tunnel; null for a public one. */
  readonly prm: string | null;
}

export type CardConfig = Pick<Config, 'cardSchemaUrl' | 'serviceName' | 'zone' | 'baseUrl'>;

/** The one scope a tunnel's /mcp asks for (API.md section 13). */
export const MCP_SCOPE = 'mcp';

export const V1_SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
export const V1_CARD_PATH = '/mcp/server-card';
export const V1_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
export const CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';
/** The v1 schema's bound on `description`. */
const DESCRIPTION_MAX = 100;

function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** What every document says of the tunnel on `host` (the default tunnel host or the custom domain). */
interface Facts {
  label: string;
  name: string;
  description: string;
  mcpUrl: string;
  meta: { 'io.service/served-by': string; 'io.service/card-version': 1 };
}

function factsOf(config: CardConfig, tunnel: CardTunnel, host: string): Facts {
  const label = tunnelLabel(tunnel.subdomain, tunnel.slug);
  const onCustomDomain = tunnel.customDomain !== null && host === tunnel.customDomain;
  return {
    label,
    name: `io.service/${onCustomDomain ? host : label}`,
    description: `An MCP server exposed via ${config.serviceName}.`,
    mcpUrl: `https://${host}/mcp`,
    meta: { 'io.service/served-by': config.serviceName, 'io.service/card-version': 1 },
  };
}

/** The seed's card JSON (SEP-2127 as first drafted), byte for byte as it has always been. */
function seedJson(config: CardConfig, f: Facts, tools: readonly string[]): string {
  return JSON.stringify({
    $schema: config.cardSchemaUrl,
    name: f.name,
    title: f.label,
    description: f.description,
    version: '1',
    capabilities: { tools: {} },
    tools: tools.map((name) => ({ name })),
    remotes: [{ type: 'streamable-http', endpoint: f.mcpUrl }],
    _meta: f.meta,
  });
}

/** The v1 card (current SEP-2127 draft): `remotes[].url`, no tool list (the names move to _meta). */
function v1Json(f: Facts, tools: readonly string[]): string {
  return JSON.stringify({
    $schema: V1_SCHEMA_URL,
    name: f.name,
    version: '1',
    title: f.label,
    description: truncate(f.description, DESCRIPTION_MAX),
    remotes: [{ type: 'streamable-http', url: f.mcpUrl }],
    _meta: { ...f.meta, 'io.service/tools': tools },
  });
}

/** The host's AI Catalog: one entry, the v1 card of the tunnel served there. */
function catalogJson(config: CardConfig, f: Facts, host: string): string {
  return JSON.stringify({
    specVersion: '1.0',
    entries: [{ identifier: `urn:air:${config.zone}:mcp:${f.label}`, type: V1_CARD_MEDIA_TYPE, url: `https://${host}${V1_CARD_PATH}` }],
  });
}

/** RFC 9728 metadata of the tunnel's /mcp on `host`: this server is its authorization server. */
function protectedResourceJson(config: CardConfig, f: Facts, host: string, tunnel: CardTunnel): string {
  const onCustomDomain = tunnel.customDomain !== null && host === tunnel.customDomain;
  return JSON.stringify({
    resource: f.mcpUrl,
    authorization_servers: [config.baseUrl],
    scopes_supported: [MCP_SCOPE],
    bearer_methods_supported: ['header'],
    resource_name: onCustomDomain ? host : f.label,
  });
}

export const card = (tunnelId: string, json: string, v1: string, catalog: string, prm: string | null): Card => ({ kind: 'card', tunnelId, json, v1, catalog, prm });

/** The protected resource metadata of the tunnel on `host`, or null when its /mcp is public. */
export function protectedResourceFor(config: CardConfig, tunnel: CardTunnel, host: string): string | null {
  return tunnel.access === 'oauth' ? protectedResourceJson(config, factsOf(config, tunnel, host), host, tunnel) : null;
}

/** Every document of the tunnel's card on `host`, made together (one cache entry holds them all). */
export function cardFor(config: CardConfig, tunnel: CardTunnel, host: string): Card {
  const f = factsOf(config, tunnel, host);
  const prm = tunnel.access === 'oauth' ? protectedResourceJson(config, f, host, tunnel) : null;
  return card(tunnel.id, seedJson(config, f, tunnel.pinnedTools), v1Json(f, tunnel.pinnedTools), catalogJson(config, f, host), prm);
}
