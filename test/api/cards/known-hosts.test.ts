// The known-hosts filter keeps itself current by reading what changed since its watermark
// (ADR 24): every way a host can appear behind the service's back shows after one check, a check
// with nothing changed reads no row however many tunnels there are, a transaction still open at
// a check is read by the next one, and the filter is built again only when it is full or a check
// finds a bulk change.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import pg from 'pg';
import { CHECK_MS, KnownHosts } from '../../../src/domain/cards/known-hosts.js';
import { HOSTS_CHANGED_MAX, HOSTS_CHANGED_SQL, selectHostsChanged, TUNNEL_HOSTS_PAGE_SQL } from '../../../src/domain/cards/store.js';
import type { Sql } from '../../../src/domain/store.js';
import { signedIn } from '../../support/accounts.js';
import { needs } from '../../support/backends.js';
import { useServer } from '../../support/server.js';
import { uniqueSubdomain } from '../../support/tunnels.js';

const ZONE = 'tunnels.localhost';
const s = useServer();

/** The server's Sql, counting statements by kind. */
function counted(): { sql: Sql; pages: () => number; checks: () => number; all: () => number } {
  let pages = 0;
  let checks = 0;
  let all = 0;
  const sql = (<Row>(text: string, values: readonly unknown[]) => {
    all++;
    if (text === TUNNEL_HOSTS_PAGE_SQL) pages++;
    if (text === HOSTS_CHANGED_SQL) checks++;
    return s.deps.sql<Row>(text, values);
  }) as Sql;
  return { sql, pages: () => pages, checks: () => checks, all: () => all };
}

async function builtFilter(sql: Sql): Promise<KnownHosts> {
  const errors: unknown[] = [];
  const filter = new KnownHosts(sql, ZONE, (err) => errors.push(err));
  await filter.rebuild(0);
  assert.deepEqual(errors, []);
  return filter;
}

const hostOf = (sub: string, slug: string) => `${sub}--${slug}.${ZONE}`;

test('every change made behind the service\'s back shows after one check: insert, rename, custom domain, transfer, slug', async () => {
  const [a, b] = [await signedIn(s), await signedIn(s)];
  const existing = uniqueSubdomain('kept');
  await s.deps.db.tunnel.create({ data: { accountId: a.id, subdomain: existing } });
  const c = counted();
  const filter = await builtFilter(c.sql);
  assert.equal(filter.mayHave(hostOf(existing, a.slug), 0), true);

  const inserted = uniqueSubdomain('ins');
  const renamedTo = uniqueSubdomain('ren');
  const moved = uniqueSubdomain('moved');
  const domain = `${randomUUID().slice(0, 8)}.example.org`;
  const newSlug = `kh${randomUUID().slice(0, 8)}`;
  await s.deps.sql(`INSERT INTO tunnels (id, account_id, subdomain, updated_at) VALUES ($1, $2, $3, now())`, [randomUUID(), a.id, inserted]);
  const t = await s.deps.db.tunnel.create({ data: { accountId: a.id, subdomain: uniqueSubdomain('old') } });
  await s.deps.sql(`UPDATE tunnels SET subdomain = $2 WHERE id = $1`, [t.id, renamedTo]);
  await s.deps.sql(`UPDATE tunnels SET custom_domain = $2 WHERE id = $1`, [t.id, domain]);
  const m = await s.deps.db.tunnel.create({ data: { accountId: a.id, subdomain: moved } });
  await s.deps.sql(`UPDATE tunnels SET account_id = $2 WHERE id = $1`, [m.id, b.id]);
  await s.deps.sql(`UPDATE accounts SET slug = $2 WHERE id = $1`, [b.id, newSlug]);
  // The moved tunnel is now at its new owner's new slug only.
  const expected = [hostOf(inserted, a.slug), hostOf(renamedTo, a.slug), domain, hostOf(moved, newSlug)];
  // The filter says "surely not" of hosts it never took in; a new host may pass as a false
  // positive (1 in 100), so only the hosts it rules out now are asserted below.
  const ruledOut = expected.filter((h) => !filter.mayHave(h, 0));
  assert.ok(ruledOut.length >= 2, `the filter rules out new hosts before its check (${ruledOut.length} of ${expected.length})`);

  const before = c.all();
  await filter.check(CHECK_MS);
  assert.equal(c.all() - before, 1, 'a check is one statement');
  assert.deepEqual(expected.filter((h) => !filter.mayHave(h, CHECK_MS)), [], 'every changed host is in the filter after the check');
});

test('a check with nothing changed reads no row, however many tunnels there are; the next watermark never goes back', async () => {
  const owner = await signedIn(s);
  await s.deps.sql(`INSERT INTO tunnels (id, account_id, subdomain, updated_at) SELECT gen_random_uuid()::text, $1, 'many' || g, now() FROM generate_series(1, 3000) g`, [owner.id]);
  try {
    const first = await selectHostsChanged(s.deps.sql, '0');
    assert.ok(first.rows.length >= 3000, 'from watermark 0, every tunnel written since the migration is read');
    const next = await selectHostsChanged(s.deps.sql, first.watermark);
    assert.deepEqual(next.rows, [], 'nothing changed since');
    assert.ok(BigInt(next.watermark) >= BigInt(first.watermark));
    // Updates that leave the hosts alone do not count as changes.
    await s.deps.sql(`UPDATE tunnels SET discoverable = true, pinned_tools = '{a}' WHERE account_id = $1`, [owner.id]);
    await s.deps.sql(`UPDATE tunnels SET subdomain = subdomain WHERE account_id = $1`, [owner.id]);
    await s.deps.sql(`UPDATE accounts SET slug = slug, name = 'x' WHERE id = $1`, [owner.id]);
    assert.deepEqual((await selectHostsChanged(s.deps.sql, next.watermark)).rows, [], 'no host changed');
  } finally {
    await s.deps.sql(`DELETE FROM tunnels WHERE account_id = $1`, [owner.id]);
  }
});

test('a change whose transaction is open during a check is read by the next check', needs(['DATABASE_URL'], 'a second connection holding a transaction open'), async () => {
  const owner = await signedIn(s);
  const c = counted();
  const filter = await builtFilter(c.sql);
  const other = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await other.connect();
  try {
    const sub = uniqueSubdomain('slow');
    // Its transaction id is taken before the check, and it commits after it.
    await other.query('BEGIN');
    await other.query(`INSERT INTO tunnels (id, account_id, subdomain, updated_at) VALUES ($1, $2, $3, now())`, [randomUUID(), owner.id, sub]);
    await filter.check(CHECK_MS);
    await other.query('COMMIT');
    // A later transaction's change, read by the same next check.
    const later = uniqueSubdomain('later');
    await s.deps.sql(`INSERT INTO tunnels (id, account_id, subdomain, updated_at) VALUES ($1, $2, $3, now())`, [randomUUID(), owner.id, later]);
    await filter.check(2 * CHECK_MS);
    assert.equal(filter.mayHave(hostOf(sub, owner.slug), 2 * CHECK_MS), true, 'the slow transaction\'s host');
    assert.equal(filter.mayHave(hostOf(later, owner.slug), 2 * CHECK_MS), true, 'the later host');
  } finally {
    await other.query('ROLLBACK').catch(() => {});
    await other.end();
  }
});

test('requests keep the filter current: a check when due, no build while it has room', async () => {
  const c = counted();
  const filter = await builtFilter(c.sql);
  const pages = c.pages();
  const checks = c.checks();
  // Not due yet: no statement.
  const all = c.all();
  filter.mayHave('y.example', CHECK_MS - 1);
  assert.equal(c.all(), all);
  // Due: the request starts a check (joined here), not a build.
  filter.mayHave('z.example', CHECK_MS);
  await filter.check(CHECK_MS);
  assert.equal(c.checks(), checks + 1);
  assert.equal(c.pages(), pages, 'no page read: the filter is not built again');
});

test('a full filter is built again, sized for what it found', async () => {
  const c = counted();
  const filter = await builtFilter(c.sql);
  const pages = c.pages();
  // The invalidations' hosts fill it past what it was sized for (at least 65,536).
  filter.add(Array.from({ length: 300_000 }, (_, i) => `fill${i}.example`));
  filter.mayHave('x.example', 1);
  await filter.check(1);
  assert.ok(c.pages() > pages, 'a full filter reads the pages again');
  // Shed: a host added only by the fill is no longer in it (1 in 100 could be a false positive).
  const still = Array.from({ length: 200 }, (_, i) => `fill${i}.example`).filter((h) => filter.mayHave(h, 1));
  assert.ok(still.length < 20, `${still.length} of 200 filled hosts remain after the build`);
});

test('a check that finds a bulk change builds the filter again instead of reading it', async () => {
  const c = counted();
  let bulk = false;
  // The bulk is simulated: the check's statement answers one row more than a check takes.
  const sql = (<Row>(text: string, values: readonly unknown[]) => {
    if (bulk && text === HOSTS_CHANGED_SQL) {
      bulk = false;
      return Promise.resolve(Array.from({ length: HOSTS_CHANGED_MAX + 1 }, (_, i) => ({ watermark: '1', subdomain: `b${i}`, customDomain: null, slug: 'bulk' })) as Row[]);
    }
    return c.sql<Row>(text, values);
  }) as Sql;
  const filter = await builtFilter(sql);
  const pages = c.pages();
  bulk = true;
  await filter.check(CHECK_MS);
  assert.ok(c.pages() > pages, 'the pages are read again');
});
