// Benchmark plumbing: the real server and the baselines run as child processes on loopback,
// autocannon drives them for a bounded time, and every figure is reported as a ratio against a
// baseline measured in the same run (absolute numbers drift on shared machines).
import { spawn, type ChildProcess } from 'node:child_process';
import { request, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export interface Load {
  url: string;
  path: string;
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'HEAD';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationSeconds?: number;
  /** Expected status; non-matching responses are counted and reported. */
  expectStatus?: number;
}

export interface Measurement {
  rps: number;
  p99: number;
  errors: number;
  unexpected: number;
}

export async function measure(load: Load): Promise<Measurement> {
  const warm = await runOnce({ ...load, durationSeconds: 1 });
  void warm;
  return runOnce(load);
}

function runOnce(load: Load): Promise<Measurement> {
  let unexpected = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: load.url + load.path,
        method: load.method ?? 'GET',
        headers: load.headers ?? {},
        ...(load.body !== undefined ? { body: load.body } : {}),
        connections: load.connections ?? 20,
        duration: load.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 8),
      },
      (err, result) => {
        if (err) return reject(err);
        resolve({ rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.timeouts, unexpected });
      },
    );
    if (load.expectStatus !== undefined) {
      instance.on('response', (_client, statusCode) => {
        if (statusCode !== load.expectStatus) unexpected++;
      });
    }
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export interface Proc {
  url: string;
  pid: number;
  /** Resident memory of the process, in MiB. */
  rssMiB(): number;
  stop(): Promise<void>;
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode} before answering ${url}`);
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${url}`);
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

export async function spawnNode(script: string, env: Record<string, string>, readyPath = '/healthz'): Promise<Proc> {
  const port = await freePort();
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...loader, script], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: env.LOG_LEVEL ?? 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(url + readyPath, child);
  return {
    url,
    pid: child.pid!,
    rssMiB: () => rssOf(child.pid!),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

/** The real server, on real PostgreSQL/Redis when BENCH_DATABASE_URL/BENCH_REDIS_URL are set. */
export async function startServer(env: Record<string, string> = {}): Promise<Proc & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tunnel-svc-bench-'));
  // MALLOC_ARENA_MAX=2 as `npm start` sets it: glibc's per-thread arenas would otherwise keep
  // argon2's 19 MiB buffers from the libuv threads resident.
  const base: Record<string, string> = { DATA_DIR: dataDir, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' };
  if (process.env.BENCH_DATABASE_URL) base.DATABASE_URL = process.env.BENCH_DATABASE_URL;
  if (process.env.BENCH_REDIS_URL) base.REDIS_URL = process.env.BENCH_REDIS_URL;
  const proc = await spawnNode('dist/main.js', { ...base, ...env });
  return {
    ...proc,
    dataDir,
    async stop() {
      await proc.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A bare node:http server answering fixed bytes with fixed headers (the baseline). */
export async function startBareHttp(status: number, headers: Record<string, string>, body: string): Promise<Proc> {
  return spawnNode('bench/baselines/http.ts', {
    BASELINE_STATUS: String(status),
    BASELINE_HEADERS: JSON.stringify(headers),
    BASELINE_BODY: body,
  }, '/');
}

/** A bare Yoga server answering `{ hello }` (the GraphQL baseline). */
export async function startBareYoga(): Promise<Proc> {
  return spawnNode('bench/baselines/yoga.ts', {}, '/graphql?query=%7Bhello%7D');
}

export interface Row {
  name: string;
  value: Measurement;
  baselineName: string;
  baseline: Measurement;
  target?: string;
}

export function ratioRow(r: Row): string {
  const ratio = r.value.rps / r.baseline.rps;
  // autocannon reports whole milliseconds: a 0 ms baseline p99 has no meaningful ratio.
  const p99Ratio = r.baseline.p99 > 0 ? (r.value.p99 / r.baseline.p99).toFixed(2) : '–';
  return `| ${r.name} | ${r.value.rps.toFixed(0)} | ${r.value.p99.toFixed(1)} | ${r.baselineName} ${r.baseline.rps.toFixed(0)} rps, p99 ${r.baseline.p99.toFixed(1)} ms | **${ratio.toFixed(2)}** | ${p99Ratio} | ${r.target ?? ''} |`;
}

export const TABLE_HEADER =
  '| benchmark | req/s | p99 ms | baseline (same run) | req/s ratio | p99 ratio | target |\n|---|---|---|---|---|---|---|';

export interface BenchResult {
  rows: Row[];
  notes: string[];
}

/** One GET with an explicit Host header (fetch cannot set it), for sampling what a suite measures. */
export function getWithHost(url: string, path: string, host: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const req = request({ hostname: target.hostname, port: target.port, path, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}
