// The Server Card (SPEC 2.5, SEP-2127): built only from the tunnel record and its pinned tool
// names, never from an MCP session. The document is made once per cache entry; the HTTP adapter
// adds its ETag and headers, also once per entry.
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
 * A discoverable tunnel's card as served on one host. The cache hands out the same object for
 * every request on that host until it is invalidated or expires.
 */
export interface Card {
  readonly kind: 'card';
  readonly tunnelId: string;
  /** The card document, serialised. */
  readonly json: string;
}

export type CardConfig = Pick<Config, 'cardSchemaUrl' | 'serviceName' | 'zone'>;

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

export const card = (tunnelId: string, json: string): Card => ({ kind: 'card', tunnelId, json });
