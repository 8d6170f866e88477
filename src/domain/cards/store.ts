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
// makes one per host, and Prisma's model API (findFirst with a relation filter), or even its raw
// path, allocates enough per query to grow the heap under such a flood (ADR 5).
export async function findCardTunnel(sql: Sql, query: CardQuery): Promise<CardTunnelRow | null> {
  const [row] =
    'customDomain' in query
      ? await sql<CardTunnelRow>(`${TUNNEL_COLUMNS} WHERE t.custom_domain = $1`, [query.customDomain])
      : await sql<CardTunnelRow>(`${TUNNEL_COLUMNS} WHERE a.slug = $1 AND t.subdomain = $2`, [query.slug, query.subdomain]);
  return row ?? null;
}

/** Rows per page of the known-hosts scan (a literal in its statement, so the planner sizes the page right). */
export const TUNNEL_HOSTS_PAGE = 5000;

/** Where a page of the known-hosts scan resumes: after this (account, subdomain); '' and '' for the first page. */
export interface TunnelHostsCursor {
  accountId: string;
  subdomain: string;
}

export interface TunnelHostsRow {
  accountId: string;
  subdomain: string;
  customDomain: string | null;
  slug: string;
}

// Keyset pages in (account, subdomain) order, the order of an index of each table: PostgreSQL
// merge-joins a range of the tunnels' (account_id, subdomain) index with the same range of the
// accounts' key, with no per-row index descent and no parallel workers. Paged by the tunnel's id
// instead, a page was a nested loop of 5,000 account-key descents, which the planner spread over
// parallel workers: on a million tunnels 1.2-1.4 s a page, 5-15x this (workers are new processes
// that first fault in every shared buffer they touch). `a.id >= $1` bounds the accounts' side,
// which a row comparison on the tunnels alone does not.
export const TUNNEL_HOSTS_PAGE_SQL = `SELECT t.account_id AS "accountId", t.subdomain, t.custom_domain AS "customDomain", a.slug
  FROM tunnels t JOIN accounts a ON a.id = t.account_id
  WHERE (t.account_id, t.subdomain) > ($1, $2) AND a.id >= $1
  ORDER BY t.account_id, t.subdomain LIMIT ${TUNNEL_HOSTS_PAGE}`;

/** One page (TUNNEL_HOSTS_PAGE rows, fewer on the last) of every tunnel's names, for the known-hosts filter. */
export function selectTunnelHostsPage(sql: Sql, after: TunnelHostsCursor): Promise<TunnelHostsRow[]> {
  return sql<TunnelHostsRow>(TUNNEL_HOSTS_PAGE_SQL, [after.accountId, after.subdomain]);
}

export async function countTunnels(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }>('SELECT count(*)::int AS n FROM tunnels', []);
  return row?.n ?? 0;
}
