// Host → tunnel, from the database: `<subdomain>--<slug>.ZONE` by subdomain and account slug, any
// other host by custom domain. A host that cannot name a tunnel is answered without a query.
import type { Sql } from '../store.js';
import { findCardTunnel, type CardQuery } from './store.js';
import { cardHostsOf, isHostname } from '../tunnels/names.js';
import { cardFor, protectedResourceFor, type Card, type CardConfig, type CardTunnel } from './card.js';

export interface NoCard {
  kind: 'none';
  /** Set when a tunnel matches but is not discoverable (so it can be invalidated by id). */
  tunnelId: string | null;
  /** The protected resource metadata of a non-discoverable `oauth` tunnel. */
  prm: string | null;
}

export type Resolution = Card | NoCard;

export const UNKNOWN: NoCard = Object.freeze({ kind: 'none', tunnelId: null, prm: null });

export interface Looked {
  resolution: Resolution;
  /** Every card host of the matched tunnel (for invalidation by tunnel id); empty when none. */
  tunnelHosts: string[];
}

const PART = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/** What to look up for a host, or null when no tunnel can have it. */
export function queryOf(host: string, zone: string): CardQuery | null {
  const suffix = zone.length + 1;
  if (host.length > suffix && host.endsWith(zone) && host.charCodeAt(host.length - suffix) === 46 /* . */) {
    const label = host.slice(0, -suffix);
    const cut = label.indexOf('--');
    if (cut < 1 || label.length > 63) return null;
    const subdomain = label.slice(0, cut);
    const slug = label.slice(cut + 2);
    if (slug.length < 3 || !PART.test(subdomain) || !PART.test(slug) || slug.includes('--')) return null;
    return { subdomain, slug };
  }
  return isHostname(host) ? { customDomain: host } : null;
}

export async function lookUpCard(sql: Sql, config: CardConfig, host: string): Promise<Looked> {
  const query = queryOf(host, config.zone);
  if (!query) return { resolution: UNKNOWN, tunnelHosts: [] };
  const row = await findCardTunnel(sql, query);
  if (!row) return { resolution: UNKNOWN, tunnelHosts: [] };
  const tunnel: CardTunnel = { ...row, pinnedTools: row.pinnedTools ?? [] };
  const tunnelHosts = cardHostsOf(tunnel, tunnel.slug, config.zone);
  if (!tunnel.discoverable) return { resolution: { kind: 'none', tunnelId: tunnel.id, prm: protectedResourceFor(config, tunnel, host) }, tunnelHosts };
  return { resolution: cardFor(config, tunnel, host), tunnelHosts };
}
