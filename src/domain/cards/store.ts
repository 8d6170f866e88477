// The card's one query: host → tunnel (with the owner's slug), on a cache miss.
import type { Sql } from '../store.js';

/** What to look up for a host: by subdomain and account slug, or by custom domain. */
export type CardQuery = { subdomain: string; slug: string } | { customDomain: string };

export interface CardTunnelRow {
  id: string;
  subdomain: string;
  customDomain: string | null;
  discoverable: boolean;
  pinnedTools: string[] | null;
  access: string;
  slug: string;
}

const TUNNEL_COLUMNS = `SELECT t.id, t.subdomain, t.custom_domain AS "customDomain", t.discoverable,
  t.pinned_tools AS "pinnedTools", t.access, a.slug FROM tunnels t JOIN accounts a ON a.id = t.account_id`;

// One indexed statement per miss, straight on node-postgres: a crawler flooding random hosts
// makes one per host. Measured with 100,000 random hosts: the model API (findFirst with a
// relation filter) allocated enough to grow the heap by ~130 MiB, Prisma's raw path by ~30 MiB.
export async function findCardTunnel(sql: Sql, query: CardQuery): Promise<CardTunnelRow | null> {
  const [row] =
    'customDomain' in query
      ? await sql<CardTunnelRow>(`${TUNNEL_COLUMNS} WHERE t.custom_domain = $1`, [query.customDomain])
      : await sql<CardTunnelRow>(`${TUNNEL_COLUMNS} WHERE a.slug = $1 AND t.subdomain = $2`, [query.slug, query.subdomain]);
  return row ?? null;
}

/** One page of every tunnel's names (the known-hosts filter's build), in id order after `afterId`. */
export function selectTunnelHostsPage(sql: Sql, afterId: string, limit: number): Promise<{ id: string; subdomain: string; customDomain: string | null; slug: string }[]> {
  return sql(
    `SELECT t.id, t.subdomain, t.custom_domain AS "customDomain", a.slug FROM tunnels t JOIN accounts a ON a.id = t.account_id
     WHERE t.id > $1 ORDER BY t.id LIMIT $2`,
    [afterId, limit],
  );
}

export async function countTunnels(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }>('SELECT count(*)::int AS n FROM tunnels', []);
  return row?.n ?? 0;
}
