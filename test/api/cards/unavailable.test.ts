// "Host resolver unavailable → 502": a second server instance reaches the same database (and
// Redis, on real backends) through loopback proxies the test can cut or silence. The first
// instance stays healthy and is where accounts and tunnels are made. A second instance needs a
// real PostgreSQL: the embedded database is one backend behind its socket, and two instances'
// pools interleave their statements on it (each instance's own start-up queries, the known-hosts
// filter's build among them, showed it: "bind message supplies 1 parameters").
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useSignedIn } from '../../support/accounts.js';
import { needs } from '../../support/backends.js';
import { assertProblem } from '../../support/problem.js';
import { startTestServer, uniqueEmail, useServer, type TestServer } from '../../support/server.js';
import { CATALOG_PATH, V1_CARD_PATH, card, discoverableTunnel, knownHostsInUse } from '../../support/tunnels.js';
import { TcpProxy } from '../../support/tcp-proxy.js';

const ZONE = 'tunnels.localhost';
const secondInstance = needs(['DATABASE_URL'], 'a second instance on the same database (the embedded one serves one)');
const healthy = useServer();
const owner = useSignedIn(healthy, { email: uniqueEmail('down') });

async function proxiedInstance(): Promise<{ server: TestServer; proxies: TcpProxy[] }> {
  const dbProxy = await TcpProxy.forDatabase(healthy.deps.database.url);
  const proxies = [dbProxy];
  const env: Record<string, string> = { DATABASE_URL: TcpProxy.rewrite(healthy.deps.database.url, dbProxy.port) };
  if (process.env.REDIS_URL) {
    const redis = new URL(process.env.REDIS_URL);
    const redisProxy = await TcpProxy.start(redis.hostname, Number(redis.port || 6379));
    proxies.push(redisProxy);
    env.REDIS_URL = TcpProxy.rewrite(process.env.REDIS_URL, redisProxy.port);
  }
  const server = await startTestServer({ smtp: healthy.smtp, env });
  // Its known-hosts filter is built from the database at start: the tests below rely on it.
  await knownHostsInUse(server, ZONE);
  return { server, proxies };
}

test('cache and database unreachable: an uncached tunnel host answers 502 at once; a cached card and unknown hosts are still answered', secondInstance, async () => {
  // The tunnels exist before the proxied instance starts: on Redis, the invalidations published
  // for them are then all sent before it subscribes, so none can land during its first lookup
  // of the cached host (one that does keeps that answer out of the in-process layer, by design).
  const cached = await discoverableTunnel(healthy, owner);
  const uncached = await discoverableTunnel(healthy, owner);
  const { server, proxies } = await proxiedInstance();
  try {
    const first = await card(server, cached.host);
    assert.equal(first.status, 200, `the proxied instance works while the proxies pass: ${first.status} ${first.text}`);
    for (const p of proxies) await p.cut();

    const started = Date.now();
    const down = await card(server, uncached.host);
    assertProblem(down, 502, 'UNAVAILABLE');
    assert.ok(Date.now() - started < 1500, `answered in ${Date.now() - started} ms`);

    // The known-hosts filter tells a host no tunnel has without the resolver; a real host not
    // cached (above) cannot be answered.
    const unknown = await card(server, `nobody--nowhere.${ZONE}`);
    assert.equal(unknown.status, 404, 'an unknown host is answered by the known-hosts filter');
    for (const path of [V1_CARD_PATH, CATALOG_PATH]) {
      assertProblem(await card(server, uncached.host, { path }), 502, 'UNAVAILABLE');
    }
    const stillCached = await card(server, cached.host);
    assert.equal(stillCached.status, 200, 'the in-process cache still answers');
    for (const path of [V1_CARD_PATH, CATALOG_PATH]) {
      assert.equal((await card(server, cached.host, { path })).status, 200, `${path}: the same cached entry answers`);
    }
    assert.equal((await card(healthy, uncached.host)).status, 200, 'the healthy instance is unaffected');
  } finally {
    for (const p of proxies) await p.cut().catch(() => undefined);
    await server.close();
  }
});

test('cache and database silent (connections hang): the card answers 502 within the resolver bound', secondInstance, async () => {
  const { server, proxies } = await proxiedInstance();
  try {
    const t = await discoverableTunnel(healthy, owner);
    for (const p of proxies) p.hang();
    const started = Date.now();
    const r = await card(server, t.host);
    const elapsed = Date.now() - started;
    assert.equal(r.status, 502);
    assert.ok(elapsed < 3000, `answered in ${elapsed} ms`);
  } finally {
    for (const p of proxies) await p.cut();
    await server.close();
  }
});

test(
  'Redis unreachable but the database up: cards are still resolved, from the database',
  needs(['REDIS_URL'], 'a Redis to cut while the database stays up'),
  async () => {
    const { server, proxies } = await proxiedInstance();
    try {
      const t = await discoverableTunnel(healthy, owner);
      const redisProxy = proxies[1]!;
      await redisProxy.cut();
      const r = await card(server, t.host);
      assert.equal(r.status, 200);
      assert.equal(r.json.title, `${t.subdomain}--${owner.slug}`);
      assert.equal((await card(server, `nobody--nowhere.${ZONE}`)).status, 404);
    } finally {
      for (const p of proxies) await p.cut().catch(() => undefined);
      await server.close();
    }
  },
);
