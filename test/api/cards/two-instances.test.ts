// "A change shows on the very next request on any instance": two server instances on the same
// PostgreSQL and Redis. Each change is made on instance A after instance B has cached the old
// answer (in process and in Redis); B's very next request must see the change. Only meaningful
// on the real backends (the memory cache is one instance by definition), so on the embedded
// defaults the tests are reported as skipped; CI runs the suite on both backends.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { signedIn } from '../../support/accounts.js';
import { needs } from '../../support/backends.js';
import { startTestServer, useServer } from '../../support/server.js';
import { hashTag } from '../../../src/infra/cache/keys.js';
import { TcpProxy } from '../../support/tcp-proxy.js';
import {
  CATALOG_PATH,
  INTERNAL_TOKEN,
  V1_CARD_PATH,
  card,
  createTunnel,
  customDomain,
  discoverableTunnel,
  patchTunnel,
  pinTools,
  uniqueSubdomain,
} from '../../support/tunnels.js';

const ZONE = 'tunnels.localhost';
const shared = needs(['DATABASE_URL', 'REDIS_URL'], 'two instances sharing state');

describe('two instances on one PostgreSQL and Redis', () => {
  const a = useServer({ env: { INTERNAL_API_TOKEN: INTERNAL_TOKEN } }, shared);
  const b = useServer(() => ({ smtp: a.smtp, env: { INTERNAL_API_TOKEN: INTERNAL_TOKEN } }), shared);

  /** Both instances' caches hold the answer (B asked twice: Redis, then in process). */
  async function warm(host: string, status: number): Promise<void> {
    for (const s of [b, b, a]) assert.equal((await card(s, host)).status, status, host);
  }

  test('discoverable flips show on the other instance at once, both ways', shared, async () => {
    const owner = await signedIn(a);
    const t = await createTunnel(a, owner);
    await warm(t.host, 404);
    await patchTunnel(a, owner, t.id, { discoverable: true });
    assert.equal((await card(b, t.host)).status, 200);
    await warm(t.host, 200);
    await patchTunnel(a, owner, t.id, { discoverable: false });
    assert.equal((await card(b, t.host)).status, 404);
  });

  test('pinned tools and custom domain changes show on the other instance at once', shared, async () => {
    const owner = await signedIn(a);
    const first = customDomain('two');
    const second = customDomain('two');
    const t = await discoverableTunnel(a, owner, { custom_domain: first });
    await warm(t.host, 200);
    await warm(first, 200);
    await warm(second, 404);
    for (const s of [b, b]) assert.deepEqual(JSON.parse((await card(s, first, { path: V1_CARD_PATH })).text)._meta['io.service/tools'], []);
    await pinTools(a, t.id, { tools: [{ name: 'one' }] });
    assert.deepEqual((await card(b, t.host)).json.tools, [{ name: 'one' }]);
    assert.deepEqual(JSON.parse((await card(b, first, { path: V1_CARD_PATH })).text)._meta['io.service/tools'], ['one'], 'the v1 card on the custom domain');
    await patchTunnel(a, owner, t.id, { custom_domain: second });
    assert.equal((await card(b, first)).status, 404);
    assert.equal((await card(b, first, { path: CATALOG_PATH })).status, 404);
    assert.equal((await card(b, second)).status, 200);
    const catalog = await card(b, second, { path: CATALOG_PATH });
    assert.equal(JSON.parse(catalog.text).entries[0].url, `https://${second}/mcp/server-card`);
  });

  test('an entry an older instance wrote (seed card only) is looked up again for the v1 paths', shared, async () => {
    const owner = await signedIn(a);
    const t = await discoverableTunnel(a, owner);
    await warm(t.host, 200);
    // What an instance from before section 14 stored: the seed card, no v1 documents.
    const key = `card:h:${hashTag(t.host)}`;
    const raw = await b.deps.cache.get(key);
    assert.ok(raw, 'the entry is in Redis');
    const { v: _v, c: _c, ...older } = JSON.parse(raw) as Record<string, unknown>;
    await b.deps.cache.set(key, JSON.stringify(older), 60_000);
    // A third instance has nothing in process: it reads that entry from Redis.
    const fresh = await startTestServer({ smtp: a.smtp, env: { INTERNAL_API_TOKEN: INTERNAL_TOKEN } });
    try {
      const v1 = await card(fresh, t.host, { path: V1_CARD_PATH });
      assert.equal(v1.status, 200, v1.text);
      assert.equal(JSON.parse(v1.text).remotes[0].url, `https://${t.host}/mcp`);
      assert.equal((await card(fresh, t.host, { path: CATALOG_PATH })).status, 200);
      const rewritten = JSON.parse((await b.deps.cache.get(key))!) as Record<string, unknown>;
      assert.equal(typeof rewritten.v, 'string', 'the entry is written again with the v1 documents');
    } finally {
      await fresh.close();
    }
  });

  test('subdomain and slug renames show on the other instance at once', shared, async () => {
    const owner = await signedIn(a);
    const t = await discoverableTunnel(a, owner);
    const sub = uniqueSubdomain('mv');
    const subHost = `${sub}--${owner.slug}.${ZONE}`;
    await warm(t.host, 200);
    await warm(subHost, 404);
    await patchTunnel(a, owner, t.id, { subdomain: sub });
    assert.equal((await card(b, t.host)).status, 404);
    assert.equal((await card(b, subHost)).status, 200);
    const slug = `two-${Date.now().toString(36)}`;
    const slugHost = `${sub}--${slug}.${ZONE}`;
    await warm(subHost, 200);
    await warm(slugHost, 404);
    const r = await a.request('/api/account/slug', { method: 'PATCH', bearer: owner.token, body: { slug } });
    assert.equal(r.status, 200, r.text);
    assert.equal((await card(b, subHost)).status, 404);
    assert.equal((await card(b, slugHost)).status, 200);
  });

  test('an instance slow to hear of a change still answers it on its next request', shared, async () => {
    // C reaches Redis through a proxy that can hold every answer back, its invalidation messages
    // included: a change made on A must wait until C has dropped its copy, not merely published.
    const proxy = await TcpProxy.start('127.0.0.1', Number(new URL(process.env.REDIS_URL!).port || 6379));
    const c = await startTestServer({
      smtp: a.smtp,
      env: { INTERNAL_API_TOKEN: INTERNAL_TOKEN, REDIS_URL: TcpProxy.rewrite(process.env.REDIS_URL!, proxy.port) },
    });
    try {
      const owner = await signedIn(a);
      const t = await discoverableTunnel(a, owner);
      for (const s of [c, c, a]) assert.equal((await card(s, t.host)).status, 200);
      proxy.delayMs = 300;
      const started = performance.now();
      await pinTools(a, t.id, { tools: [{ name: 'late' }] });
      const waited = performance.now() - started;
      assert.deepEqual((await card(c, t.host)).json.tools, [{ name: 'late' }]);
      assert.ok(waited >= 250, `the change waited for the slow instance to confirm (${waited.toFixed(0)} ms)`);
      await patchTunnel(a, owner, t.id, { discoverable: false });
      assert.equal((await card(c, t.host)).status, 404);
    } finally {
      proxy.delayMs = 0;
      await c.close();
      await proxy.cut();
    }
  });

  test('an instance that stopped is not waited for', shared, async () => {
    const gone = await startTestServer({ smtp: a.smtp, env: { INTERNAL_API_TOKEN: INTERNAL_TOKEN } });
    await gone.close();
    const owner = await signedIn(a);
    const t = await discoverableTunnel(a, owner);
    await warm(t.host, 200);
    const started = performance.now();
    await patchTunnel(a, owner, t.id, { discoverable: false });
    assert.ok(performance.now() - started < 900, 'no wait for the stopped instance');
    assert.equal((await card(b, t.host)).status, 404);
  });

  test('tunnel and account deletions show on the other instance at once', shared, async () => {
    const owner = await signedIn(a);
    const gone = await discoverableTunnel(a, owner);
    const domain = customDomain('two');
    const kept = await discoverableTunnel(a, owner, { custom_domain: domain });
    await warm(gone.host, 200);
    await a.request(`/api/tunnels/${gone.id}`, { method: 'DELETE', bearer: owner.token });
    assert.equal((await card(b, gone.host)).status, 404);
    await warm(kept.host, 200);
    await warm(domain, 200);
    const del = await a.request('/api/account', { method: 'DELETE', bearer: owner.token, body: { email: owner.email, password: owner.password } });
    assert.equal(del.status, 204, del.text);
    assert.equal((await card(b, kept.host)).status, 404);
    assert.equal((await card(b, domain)).status, 404);
  });
});
