// A Redis Cluster (3 masters, each with a replica so that a stopped master fails over) and a
// Sentinel setup (1 master, 1 replica, 1 sentinel), from Debian's redis-server on free loopback
// ports, with short timeouts so a failover takes a couple of seconds.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Daemon, failedStart, freePort, scratchDir, sleep, waitForPort, which } from './programs.js';

export const REDIS_PROGRAMS = ['redis-server', 'redis-cli'];

function cli(port: number, ...args: string[]): string {
  const r = spawnSync(which('redis-cli') ?? 'redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0) throw new Error(`redis-cli -p ${port} ${args.join(' ')}: ${r.stderr || r.stdout}`);
  return r.stdout;
}

async function until(what: string, timeoutMs: number, check: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (check()) return;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

export interface RedisNode {
  port: number;
  daemon: Daemon;
}

export interface RedisCluster {
  /** redis:// URLs of every node (seeds for REDIS_CLUSTER_URLS). */
  urls: string[];
  nodes: RedisNode[];
  /** The node currently serving the key's slot as master. */
  masterOf(key: string): RedisNode;
  /** Crashes the master of the key's slot (SIGKILL); resolves once its replica took over. */
  failMasterOf(key: string, timeoutMs?: number): Promise<{ stopped: RedisNode; promoted: RedisNode; failoverMs: number }>;
  close(): Promise<void>;
}

const NODE_TIMEOUT_MS = 1000;

function startNode(dir: string, port: number, extra: string[]): RedisNode {
  const args = [
    '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir,
    '--protected-mode', 'no', '--loglevel', 'warning', ...extra,
  ];
  return { port, daemon: Daemon.start(`redis-${port}`, 'redis-server', args, dir) };
}

export async function startRedisCluster(opts: { masters?: number; replicas?: number } = {}): Promise<RedisCluster> {
  const masters = opts.masters ?? 3;
  const replicas = opts.replicas ?? 1;
  const scratch = scratchDir('redis-cluster');
  const nodes: RedisNode[] = [];
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const port = await freePort(10_000);
      nodes.push(
        startNode(scratch.dir, port, [
          '--cluster-enabled', 'yes',
          '--cluster-config-file', join(scratch.dir, `nodes-${port}.conf`),
          '--cluster-node-timeout', String(NODE_TIMEOUT_MS),
          // Any replica may take over at once, however long since it heard its master.
          '--cluster-replica-validity-factor', '0',
          '--cluster-require-full-coverage', 'no',
        ]),
      );
    }
    await Promise.all(nodes.map((n) => waitForPort(n.port)));
    cli(nodes[0]!.port, '--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', String(replicas), '--cluster-yes');
    await until('cluster state ok on every node', 20_000, () =>
      nodes.every((n) => cli(n.port, 'cluster', 'info').includes('cluster_state:ok')),
    );
    // Every replica in sync, so the first failover has a replica that can take over.
    await until('replicas in sync', 20_000, () =>
      nodes.every((n) => {
        const info = cli(n.port, 'info', 'replication');
        return info.includes('role:master') || info.includes('master_link_status:up');
      }),
    );
  } catch (err) {
    throw await failedStart(err, nodes.map((n) => n.daemon), scratch);
  }

  const byPort = (port: number) => nodes.find((n) => n.port === port)!;
  const masterOf = (key: string): RedisNode => {
    const live = nodes.find((n) => n.daemon.running)!;
    const slot = Number(cli(live.port, 'cluster', 'keyslot', key).trim());
    // CLUSTER SHARDS would do on 7.0+; CLUSTER SLOTS is older and enough: [start, end, master, ...].
    for (const line of cli(live.port, 'cluster', 'nodes').split('\n')) {
      const f = line.split(' ');
      if (!f[2]?.includes('master') || f[2].includes('fail')) continue;
      for (const range of f.slice(8)) {
        const [a, b] = range.split('-').map(Number);
        if (slot >= a! && slot <= (b ?? a)!) return byPort(Number(f[1]!.split(':')[1]!.split('@')[0]));
      }
    }
    throw new Error(`no master serves slot ${slot}`);
  };

  return {
    urls: nodes.map((n) => `redis://127.0.0.1:${n.port}`),
    nodes,
    masterOf,
    async failMasterOf(key, timeoutMs = 15_000) {
      const stopped = masterOf(key);
      const started = Date.now();
      await stopped.daemon.stop('SIGKILL');
      let promoted: RedisNode | null = null;
      await until('a replica promoted', timeoutMs, () => {
        promoted = masterOf(key);
        return promoted !== stopped && cli(promoted.port, 'cluster', 'info').includes('cluster_state:ok');
      });
      return { stopped, promoted: promoted!, failoverMs: Date.now() - started };
    },
    async close() {
      await Promise.all(nodes.map((n) => n.daemon.stop('SIGKILL')));
      scratch.remove();
    },
  };
}

export interface RedisSentinel {
  /** redis:// URL of the sentinel (REDIS_SENTINEL_URLS). */
  sentinelUrls: string[];
  name: string;
  master: RedisNode;
  replica: RedisNode;
  /** The master's port as the sentinel reports it now. */
  currentMasterPort(): number;
  /** Crashes the current master; resolves once the sentinel has switched to the replica. */
  failMaster(timeoutMs?: number): Promise<{ failoverMs: number }>;
  close(): Promise<void>;
}

export async function startRedisSentinel(): Promise<RedisSentinel> {
  const scratch = scratchDir('redis-sentinel');
  const name = 'scalemaster';
  const all: Daemon[] = [];
  try {
    const master = startNode(scratch.dir, await freePort(), []);
    all.push(master.daemon);
    await waitForPort(master.port);
    const replica = startNode(scratch.dir, await freePort(), ['--replicaof', '127.0.0.1', String(master.port)]);
    all.push(replica.daemon);
    await waitForPort(replica.port);
    await until('replica in sync', 15_000, () => cli(replica.port, 'info', 'replication').includes('master_link_status:up'));
    const sentinelPort = await freePort();
    const conf = join(scratch.dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${sentinelPort}`,
        'bind 127.0.0.1',
        'protected-mode no',
        `dir ${scratch.dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${master.port} 1`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 5000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    const sentinel = Daemon.start(`sentinel-${sentinelPort}`, 'redis-server', [conf, '--sentinel'], scratch.dir);
    all.push(sentinel);
    await waitForPort(sentinelPort);
    const currentMasterPort = () => Number(cli(sentinelPort, 'sentinel', 'get-master-addr-by-name', name).trim().split('\n')[1]);
    await until('sentinel knows the replica', 15_000, () => cli(sentinelPort, 'sentinel', 'replicas', name).includes(String(replica.port)));
    return {
      sentinelUrls: [`redis://127.0.0.1:${sentinelPort}`],
      name,
      master,
      replica,
      currentMasterPort,
      async failMaster(timeoutMs = 20_000) {
        const before = currentMasterPort();
        const node = before === master.port ? master : replica;
        const started = Date.now();
        await node.daemon.stop('SIGKILL');
        await until('the sentinel switched master', timeoutMs, () => currentMasterPort() !== before);
        return { failoverMs: Date.now() - started };
      },
      async close() {
        await Promise.all(all.map((d) => d.stop('SIGKILL')));
        scratch.remove();
      },
    };
  } catch (err) {
    throw await failedStart(err, all, scratch);
  }
}
