// Scale-out: GraphQL `me` and a cached card hit through HAProxy, in front of one instance and of
// three, all on a 3-master Redis Cluster (each master with a replica) and PgBouncer (transaction
// pooling); plus the cost of cluster mode itself: one instance on the cluster against one on a
// single Redis node. Needs real PostgreSQL (BENCH_DATABASE_URL, set by bench/backends.ts) and
// Debian's redis-server, pgbouncer and haproxy; otherwise it says why and measures nothing.
//
// On this 2-core machine three instances, HAProxy, six Redis nodes, PgBouncer, PostgreSQL and the
// load generator share the same two cores: the 3-vs-1 req/s ratio shows what the scaled-out
// path costs and that nothing serializes across instances, not what three machines would give.
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { startHaProxy } from '../../test/support/haproxy.js';
import { startPgBouncer } from '../../test/support/pgbouncer.js';
import { needsPrograms } from '../../test/support/programs.js';
import { startRedisCluster } from '../../test/support/redis-cluster.js';
import { SCALE_PROGRAMS } from '../../test/support/scale.js';
import { alternate, api, compare, cpuSeconds, startServer, ROUNDS, WINDOW_SECONDS, type BenchResult, type Load, type Measurement, type Target } from '../lib.js';

const ZONE = 'scale.bench.localhost';
const CARD_PATH = '/.well-known/mcp/server-card.json';
const PASSWORD = 'bench password 123';
const ME_QUERY = '{ me { id email emailVerified slug plan } }';

function window(load: Load, seconds: number): Promise<{ requests: number; p99: number; errors: number; unexpected: number }> {
  let requests = 0;
  let unexpected = 0;
  return new Promise((resolve, reject) => {
    const inst = autocannon(
      {
        url: load.url + load.path,
        method: load.method ?? 'GET',
        headers: load.headers ?? {},
        ...(load.body !== undefined ? { body: load.body } : {}),
        connections: load.connections ?? 20,
        duration: seconds,
      },
      (err, r) => (err ? reject(err) : resolve({ requests, p99: r.latency.p99, errors: r.errors + r.timeouts, unexpected })),
    );
    inst.on('response', (_c, status) => {
      requests++;
      if (load.expectStatus !== undefined && status !== load.expectStatus) unexpected++;
    });
  });
}

/** Like lib's httpTarget, but CPU per request summed over every server process behind the balancer. */
function pooledTarget(pids: number[], load: Load): Target {
  const cpu = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  return {
    pid: pids[0]!,
    async run(): Promise<Measurement> {
      await window(load, 1);
      const before = cpu();
      const started = performance.now();
      const m = await window(load, WINDOW_SECONDS);
      const seconds = (performance.now() - started) / 1000;
      return { ...m, rps: m.requests / seconds, cpuUsPerReq: ((cpu() - before) * 1e6) / Math.max(1, m.requests) };
    },
  };
}

export default async function scale(): Promise<BenchResult> {
  const skip = needsPrograms(SCALE_PROGRAMS, 'the scale-out benchmark').skip;
  const direct = process.env.BENCH_DATABASE_URL;
  if (skip || !direct || !process.env.BENCH_REDIS_URL) {
    return { rows: [], notes: [`scale: not measured (${skip ?? 'needs PostgreSQL and Redis on loopback (bench/backends.ts)'})`] };
  }
  const cluster = await startRedisCluster();
  const pgbouncer = await startPgBouncer(direct, { poolSize: 20 });
  const clusterEnv = {
    ZONE,
    DATABASE_URL: pgbouncer.url,
    DATABASE_DIRECT_URL: direct,
    REDIS_URL: '',
    REDIS_CLUSTER_URLS: cluster.urls.join(','),
  };
  const stops: (() => Promise<void>)[] = [() => cluster.close(), () => pgbouncer.close()];
  try {
    const first = await startServer(clusterEnv);
    stops.push(() => first.stop());
    const others = await Promise.all([startServer(clusterEnv), startServer(clusterEnv)]);
    for (const s of others) stops.push(() => s.stop());
    const three = [first, ...others];
    const lb1 = await startHaProxy([first.url]);
    const lb3 = await startHaProxy(three.map((s) => s.url));
    stops.push(() => lb1.close(), () => lb3.close());
    const at = (port: number) => `http://127.0.0.1:${port}`;

    const email = `bench-scale-${Date.now().toString(36)}@example.com`;
    await api(first.url, 'POST', '/auth/signup', { email, password: PASSWORD });
    const { token } = (await api(first.url, 'POST', '/auth/login', { email, password: PASSWORD })) as { token: string };
    const tunnel = (await api(first.url, 'POST', '/api/tunnels', { subdomain: 'scale' }, token)) as { id: string; host: string };
    await api(first.url, 'PATCH', `/api/tunnels/${tunnel.id}`, { discoverable: true }, token);
    // The same server on the single Redis node of bench/backends.ts, directly on PostgreSQL,
    // started once the tunnel exists: the cluster's invalidations do not reach that node, so a
    // server started before would answer the card host from its known-hosts filter as unknown.
    const single = await startServer({ ZONE, REDIS_URL: process.env.BENCH_REDIS_URL });
    stops.push(() => single.stop());
    const me = (url: string): Load => ({
      url,
      path: '/graphql',
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: ME_QUERY }),
      expectStatus: 200,
    });
    const cardLoad = (url: string): Load => ({ url, path: CARD_PATH, headers: { host: tunnel.host }, expectStatus: 200 });

    const [me1, me3] = await alternate([pooledTarget([first.pid], me(at(lb1.port))), pooledTarget(three.map((s) => s.pid), me(at(lb3.port)))]);
    const [card1, card3] = await alternate([
      pooledTarget([first.pid], cardLoad(at(lb1.port))),
      pooledTarget(three.map((s) => s.pid), cardLoad(at(lb3.port))),
    ]);
    // Cluster mode's own cost: one instance, no balancer, single node vs cluster.
    const [meSingle, meCluster] = await alternate([pooledTarget([single.pid], me(single.url)), pooledTarget([first.pid], me(first.url))]);
    const [cardSingle, cardCluster] = await alternate([
      pooledTarget([single.pid], cardLoad(single.url)),
      pooledTarget([first.pid], cardLoad(first.url)),
    ]);

    const rows = [
      { name: '`me` through HAProxy, 3 instances (Redis Cluster, PgBouncer)', baselineName: 'the same, 1 instance', compared: compare(me1!, me3!) },
      { name: 'card hit through HAProxy, 3 instances', baselineName: 'the same, 1 instance', compared: compare(card1!, card3!) },
      { name: '`me`, 1 instance on Redis Cluster + PgBouncer', baselineName: 'single Redis node, direct PostgreSQL', compared: compare(meSingle!, meCluster!) },
      { name: 'card hit, 1 instance on Redis Cluster', baselineName: 'single Redis node', compared: compare(cardSingle!, cardCluster!) },
    ];
    const bad = rows.filter((r) => r.compared.value.errors + r.compared.value.unexpected + r.compared.baseline.errors + r.compared.baseline.unexpected > 0);
    return {
      rows,
      notes: [
        `scale: req/s ratio = 3 instances ÷ 1 instance behind the same HAProxy (CPU/req summed over the instances behind it); ` +
          `2 cores shared by 3 instances, HAProxy, 6 Redis nodes, PgBouncer, PostgreSQL and autocannon, so the ratio shows the ` +
          `scaled-out path's cost, not three machines' capacity; medians of ${ROUNDS} alternating rounds.`,
        `scale: cluster overhead rows compare one instance on the 3-master cluster (and PgBouncer) with one on a single Redis node (direct PostgreSQL); ` +
          '`me` is one versioned read (a script on one slot) per request, a card hit is served in process after its first read.',
        ...(bad.length > 0
          ? [
              `scale: errors or unexpected statuses (errors/unexpected, baseline then measured) in ${bad
                .map((r) => `${r.name}: ${r.compared.baseline.errors}/${r.compared.baseline.unexpected}, ${r.compared.value.errors}/${r.compared.value.unexpected}`)
                .join('; ')}`,
            ]
          : []),
      ],
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
  }
}
