// The retention's queries: the lease that lets one instance sweep for all, and one bounded,
// indexed batch delete per kind of row past its time.
import type { Sql } from '../store.js';

/**
 * Takes the lease `name` for `holder` (free, expired, or already its own) for `ms`, on the
 * database's clock; false when another holder has it.
 */
export async function takeLease(sql: Sql, name: string, holder: string, ms: number): Promise<boolean> {
  const rows = await sql<{ holder: string }>(
    `INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
     WHERE leases.expires_at <= now() OR leases.holder = excluded.holder
     RETURNING holder`,
    [name, holder, ms],
  );
  return rows.length === 1;
}

export async function releaseLease(sql: Sql, name: string, holder: string): Promise<void> {
  await sql(`DELETE FROM leases WHERE name = $1 AND holder = $2`, [name, holder]);
}

/**
 * One kind of row the retention deletes: `where` selects rows past their time through an index
 * (`$1` is the cutoff), and `table` is where they live. A batch picks at most `$2` of them by the
 * index and deletes them by their physical address (any table, whatever its key); a row changed
 * meanwhile is left for the next batch.
 */
export interface Sweep {
  /** The counter's name in what a purge reports. */
  name: string;
  table: string;
  where: string;
}

const statements = new Map<string, string>();

/** The batch's statement (`$1` the cutoff, `$2` the limit), made once per sweep; the scale benchmark EXPLAINs it. */
export function batchStatement(s: Sweep): string {
  let text = statements.get(s.name);
  if (text === undefined) {
    text = `WITH d AS (DELETE FROM ${s.table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${s.table} WHERE ${s.where} LIMIT $2)) RETURNING 1)
      SELECT count(*)::int AS n FROM d`;
    statements.set(s.name, text);
  }
  return text;
}

/** Deletes at most `limit` rows of the sweep older than `cutoff`; how many it deleted. */
export async function deleteBatch(sql: Sql, sweep: Sweep, cutoff: Date, limit: number): Promise<number> {
  const [row] = await sql<{ n: number }>(batchStatement(sweep), [cutoff, limit]);
  return row?.n ?? 0;
}
