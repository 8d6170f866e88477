// Every change that alters a card shows on the very next request, though the card is cached.
// Each test first warms the cache with the old answer, so it is the invalidation that is tested.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { CHECK_MS, KnownHosts } from '../../../src/domain/cards/known-hosts.js';
import { TUNNEL_HOSTS_PAGE } from '../../../src/domain/cards/store.js';
import { signedIn } from '../../support/accounts.js';
import { spyOnSql } from '../../support/sql-spy.js';
import { useServer } from '../../support/server.js';
import {
  INTERNAL_TOKEN,
  card,
  createTunnel,
  customDomain,
  discoverableTunnel,
  knownHostsInUse,
  patchTunnel,
  pinTools,
  uniqueSubdomain,
} from '../../support/tunnels.js';

const ZONE = 'tunnels.localhost';
const s = useServer({ env: { INTERNAL_API_TOKEN: INTERNAL_TOKEN } });

/** Polls `check` for up to 5 s. */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

test('the card is served from cache: a database edit that bypasses the service is not seen', async () => {
  const owner = await signedIn(s);
  const t = await discoverableTunnel(s, owner);
  assert.equal((await card(s, t.host)).status, 200);
  await s.deps.db.tunnel.update({ where: { id: t.id }, data: { discoverable: false } });
  assert.equal((await card(s, t.host)).status, 200, 'answered from cache, not the database');
});

test('discoverable true → false → true flips the card on the next request', async () => {
  const owner = await signedIn(s);
  const t = await createTunnel(s, owner);
  assert.equal((await card(s, t.host)).status, 404);
  await patchTunnel(s, owner, t.id, { discoverable: true });
  assert.equal((await card(s, t.host)).status, 200);
  await patchTunnel(s, owner, t.id, { discoverable: false });
  assert.equal((await card(s, t.host)).status, 404);
  await patchTunnel(s, owner, t.id, { discoverable: true });
  assert.equal((await card(s, t.host)).status, 200);
});

test('newly pinned tools show on the next request with a new ETag; the old ETag no longer gives 304', async () => {
  const owner = await signedIn(s);
  const t = await discoverableTunnel(s, owner);
  const before = await card(s, t.host);
  assert.deepEqual(before.json.tools, []);
  assert.equal((await pinTools(s, t.id, { tools: [{ name: 'alpha' }, { name: 'beta' }] })).status, 204);
  const after = await card(s, t.host, { headers: { 'if-none-match': String(before.headers.etag) } });
  assert.equal(after.status, 200);
  assert.deepEqual(after.json.tools, [{ name: 'alpha' }, { name: 'beta' }]);
  assert.notEqual(after.headers.etag, before.headers.etag);
});

test('setting, moving and clearing the custom domain moves the card at once', async () => {
  const owner = await signedIn(s);
  const t = await discoverableTunnel(s, owner);
  const first = customDomain('first');
  const second = customDomain('second');
  assert.equal((await card(s, first)).status, 404);
  await patchTunnel(s, owner, t.id, { custom_domain: first });
  assert.equal((await card(s, first)).status, 200);
  assert.equal((await card(s, second)).status, 404);
  await patchTunnel(s, owner, t.id, { custom_domain: second });
  assert.equal((await card(s, first)).status, 404, 'the old domain stops at once');
  const moved = await card(s, second);
  assert.equal(moved.status, 200);
  assert.equal(moved.json.name, `io.service/${second}`);
  await patchTunnel(s, owner, t.id, { custom_domain: null });
  assert.equal((await card(s, second)).status, 404);
  assert.equal((await card(s, t.host)).status, 200, 'the default host is unaffected');
});

test('renaming the subdomain moves the card to the new host', async () => {
  const owner = await signedIn(s);
  const t = await discoverableTunnel(s, owner);
  const sub = uniqueSubdomain('renamed');
  const newHost = `${sub}--${owner.slug}.${ZONE}`;
  assert.equal((await card(s, t.host)).status, 200);
  assert.equal((await card(s, newHost)).status, 404);
  const r = await patchTunnel(s, owner, t.id, { subdomain: sub });
  assert.equal(r.status, 200);
  assert.equal(r.json.host, newHost);
  assert.equal((await card(s, t.host)).status, 404);
  const moved = await card(s, newHost);
  assert.equal(moved.status, 200);
  assert.equal(moved.json.title, `${sub}--${owner.slug}`);
});

test('an account slug rename moves every card of the account, custom domains renamed in place', async () => {
  const owner = await signedIn(s);
  const domain = customDomain('slug');
  const t = await discoverableTunnel(s, owner, { custom_domain: domain });
  const newSlug = `rn-${Date.now().toString(36)}`;
  const newHost = `${t.subdomain}--${newSlug}.${ZONE}`;
  assert.equal((await card(s, t.host)).status, 200);
  assert.equal((await card(s, newHost)).status, 404);
  assert.equal((await card(s, domain)).json.title, `${t.subdomain}--${owner.slug}`);
  const rename = await s.request('/api/account/slug', { method: 'PATCH', bearer: owner.token, body: { slug: newSlug } });
  assert.equal(rename.status, 200, rename.text);
  assert.equal((await card(s, t.host)).status, 404);
  const moved = await card(s, newHost);
  assert.equal(moved.status, 200);
  assert.equal(moved.json.name, `io.service/${t.subdomain}--${newSlug}`);
  assert.equal((await card(s, domain)).json.title, `${t.subdomain}--${newSlug}`);
});

test('deleting a tunnel stops its card on both hosts at once', async () => {
  const owner = await signedIn(s);
  const domain = customDomain('del');
  const t = await discoverableTunnel(s, owner, { custom_domain: domain });
  assert.equal((await card(s, t.host)).status, 200);
  assert.equal((await card(s, domain)).status, 200);
  assert.equal((await s.request(`/api/tunnels/${t.id}`, { method: 'DELETE', bearer: owner.token })).status, 204);
  assert.equal((await card(s, t.host)).status, 404);
  assert.equal((await card(s, domain)).status, 404);
});

test('deleting the account stops every card of it at once', async () => {
  const owner = await signedIn(s);
  const domain = customDomain('acct');
  const a = await discoverableTunnel(s, owner, { custom_domain: domain });
  const b = await discoverableTunnel(s, owner);
  for (const host of [a.host, domain, b.host]) assert.equal((await card(s, host)).status, 200);
  const del = await s.request('/api/account', { method: 'DELETE', bearer: owner.token, body: { email: owner.email, password: owner.password } });
  assert.equal(del.status, 204, del.text);
  for (const host of [a.host, domain, b.host]) assert.equal((await card(s, host)).status, 404, host);
});

test('a tunnel written behind the service\'s back shows once the known-hosts filter has checked (within a minute)', async () => {
  const owner = await signedIn(s);
  const sub = uniqueSubdomain('late');
  const host = `${sub}--${owner.slug}.${ZONE}`;
  assert.equal((await card(s, host)).status, 404);
  // Created behind the service's back: no invalidation names the host, so nothing shows it but
  // the filter's next check of what changed in the database.
  await s.deps.db.tunnel.create({ data: { accountId: owner.id, subdomain: sub, discoverable: true } });
  assert.equal((await card(s, host)).status, 404, 'the database is not asked again at once');
  s.clock.advance(35_000);
  assert.equal((await card(s, host)).status, 404, 'past the negative lifetime, the filter still has no such host');
  s.clock.advance(CHECK_MS);
  // The first request after the interval starts the check (and is answered by the filter as it was).
  await card(s, host);
  assert.equal(await eventually(async () => (await card(s, host)).status === 200), true, 'shown after the check');
});

test('the filter\'s build reads every tunnel, page after page, an account\'s tunnels straddling pages', async () => {
  // Two accounts with 6,000 tunnels each: the scan's pages (5,000 rows, in account and subdomain
  // order) end inside an account's tunnels, where only the subdomain tells where to resume.
  const owners = [await signedIn(s), await signedIn(s)];
  const EACH = 6000;
  try {
    for (const o of owners) {
      await s.deps.sql(
        `INSERT INTO tunnels (id, account_id, subdomain, updated_at)
         SELECT gen_random_uuid()::text, $1, 'bulk' || g, now() FROM generate_series(1, ${EACH}) g`,
        [o.id],
      );
    }
    const [{ n: total }] = (await s.deps.sql<{ n: number }>('SELECT count(*)::int AS n FROM tunnels', [])) as [{ n: number }];
    let statements = 0;
    const sql = (<Row>(text: string, values: readonly unknown[]) => {
      statements++;
      return s.deps.sql<Row>(text, values);
    }) as typeof s.deps.sql;
    const errors: unknown[] = [];
    const filter = new KnownHosts(sql, ZONE, (err) => errors.push(err));
    await filter.rebuild(0);
    assert.deepEqual(errors, []);
    // The watermark, full pages and a last short one, then what changed meanwhile.
    assert.equal(statements, 1 + Math.floor(total / TUNNEL_HOSTS_PAGE) + 1 + 1, `${statements} statements for ${total} tunnels`);
    const missed = owners.flatMap((o) =>
      Array.from({ length: EACH }, (_, i) => `bulk${i + 1}--${o.slug}.${ZONE}`).filter((h) => !filter.mayHave(h, 0)),
    );
    assert.deepEqual(missed, [], 'a host with a tunnel is never filtered out');
    const unknown = Array.from({ length: 1000 }, (_, i) => `none${i}--${owners[0]!.slug}.${ZONE}`).filter((h) => filter.mayHave(h, 0));
    assert.ok(unknown.length < 50, `${unknown.length} of 1,000 unknown hosts pass (about 1 in 100 expected)`);
  } finally {
    for (const o of owners) await s.deps.sql(`DELETE FROM tunnels WHERE account_id = $1 AND subdomain LIKE 'bulk%'`, [o.id]);
  }
});

test('unknown hosts are answered without the database: a flood of random ones makes at most 1 query in 10', async () => {
  const owner = await signedIn(s);
  const known = await discoverableTunnel(s, owner);
  // The filter is built in the background after start.
  await knownHostsInUse(s, ZONE);
  const spy = spyOnSql(s);
  try {
    const random = () => `${randomBytes(5).toString('hex')}--${randomBytes(5).toString('hex')}.${ZONE}`;
    const FLOOD = 400;
    for (let i = 0; i < FLOOD; i += 20) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => card(s, random())));
      assert.ok(answers.every((r) => r.status === 404));
    }
    const queries = spy.statements.length;
    assert.ok(queries <= FLOOD / 10, `${queries} queries for ${FLOOD} unknown hosts`);
    // A custom domain and a tunnel host created now are found at once (their change adds them).
    const late = await discoverableTunnel(s, owner);
    assert.equal((await card(s, late.host)).status, 200);
    assert.equal((await card(s, known.host)).status, 200);
  } finally {
    spy.restore();
  }
});
