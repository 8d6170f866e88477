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

/** Rows per page of the known-hosts build (a literal in its statement, so the planner sizes the page right). */
export const TUNNEL_HOSTS_PAGE = 5000;

/** Where a page of the known-hosts build resumes: after this (account, subdomain); '' and '' for the first page. */
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

// Keyset pages in (account, subdomain) order, a range of the tunnels' unique index, and each
// row's slug by its own descent of the accounts' key (a scalar subquery, which the planner keeps
// as such): no plan of this statement reads the accounts table beyond the page's owners,
// wherever the cursor sits in the key range. A join let the planner choose, and on the last
// pages of a large set it chose a hash join over a sequential scan of every account.
export const TUNNEL_HOSTS_PAGE_SQL = `SELECT t.account_id AS "accountId", t.subdomain, t.custom_domain AS "customDomain",
    (SELECT a.slug FROM accounts a WHERE a.id = t.account_id) AS slug
  FROM tunnels t WHERE (t.account_id, t.subdomain) > ($1, $2)
  ORDER BY t.account_id, t.subdomain LIMIT ${TUNNEL_HOSTS_PAGE}`;

/** One page (TUNNEL_HOSTS_PAGE rows, fewer on the last) of every tunnel's names, for the known-hosts filter. */
export function selectTunnelHostsPage(sql: Sql, after: TunnelHostsCursor): Promise<TunnelHostsRow[]> {
  return sql<TunnelHostsRow>(TUNNEL_HOSTS_PAGE_SQL, [after.accountId, after.subdomain]);
}

/**
 * Where a read of the tunnels' hosts stands: the oldest transaction still running when it read
 * (every earlier one had ended, its changes in the read), and the planner's estimate of the
 * tunnels (no count: a count reads every row).
 */
export async function hostsWatermark(sql: Sql): Promise<{ watermark: string; tunnels: number }> {
  const [row] = await sql<{ watermark: string; tunnels: number }>(
    `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS watermark,
       (SELECT greatest(reltuples, 0)::float8 FROM pg_class WHERE oid = 'tunnels'::regclass) AS tunnels`,
    [],
  );
  return { watermark: row!.watermark, tunnels: Number(row!.tunnels) };
}

/** More changed hosts than this in one check: the filter is built again instead. */
export const HOSTS_CHANGED_MAX = 50_000;

export interface HostsChanged {
  /** The watermark for the next check. */
  watermark: string;
  /** The names of every tunnel whose host (or whose owner's slug) changed at or after the watermark given. */
  rows: { subdomain: string; customDomain: string | null; slug: string }[];
}

// Both sides read through their hosts_xid index from the watermark on: what changed since, never
// the rest. At most HOSTS_CHANGED_MAX + 1 rows, so a bulk change shows as "too many".
export const HOSTS_CHANGED_SQL = `SELECT w.watermark, h.subdomain, h."customDomain", h.slug
  FROM (SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS watermark) w
  LEFT JOIN LATERAL (
    SELECT * FROM (
      SELECT t.subdomain, t.custom_domain AS "customDomain", (SELECT a.slug FROM accounts a WHERE a.id = t.account_id) AS slug
        FROM tunnels t WHERE t.hosts_xid >= $1::bigint
      UNION ALL
      SELECT t.subdomain, t.custom_domain, a.slug FROM accounts a JOIN tunnels t ON t.account_id = a.id WHERE a.hosts_xid >= $1::bigint
    ) c LIMIT ${HOSTS_CHANGED_MAX + 1}
  ) h ON true`;

/** The hosts changed since `watermark` (hostsWatermark, or an earlier check), and the next watermark. */
export async function selectHostsChanged(sql: Sql, watermark: string): Promise<HostsChanged> {
  const rows = await sql<{ watermark: string; subdomain: string | null; customDomain: string | null; slug: string | null }>(HOSTS_CHANGED_SQL, [watermark]);
  return {
    watermark: rows[0]!.watermark,
    rows: rows.flatMap((r) => (r.subdomain === null || r.slug === null ? [] : [{ subdomain: r.subdomain, customDomain: r.customDomain, slug: r.slug }])),
  };
}
