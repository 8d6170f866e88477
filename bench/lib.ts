// Benchmark plumbing: the real server and the baselines run as child processes on loopback,
// autocannon drives them for a bounded time, and every figure is reported as a ratio against a
// baseline measured in the same run (absolute numbers drift on shared machines). The main figure
// is CPU time per request of each process, read from /proc around each window: steadier than
// requests per second when other work shares the machine, and free of the load generator's own
// CPU (autocannon runs in this process, a third one).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request, type IncomingHttpHeaders } from 'node:http';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { startFlags } from './start-flags.js';

export interface Load {
  url: string;
  path: string;
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'HEAD';
  headers?: Record<string, string>;
  body?: string;
  /** Request bodies sent in turn (one per request, round robin), instead of one fixed body. */
  bodies?: string[];
  connections?: number;
  /** Timed window in seconds (BENCH_SECONDS, default 5). */
  durationSeconds?: number;
  /** A fixed number of requests instead of a timed window: every request sent is answered and counted. */
  amount?: number;
  /** Expected status; non-matching responses are counted and reported. */
  expectStatus?: number;
}

/** One timed window against one process. */
export interface Measurement {
  rps: number;
  p99: number;
  errors: number;
  unexpected: number;
  /** Responses completed inside the window. */
  requests: number;
  /** CPU time (user + system, every thread) the measured process spent in the window, in µs per request. */
  cpuUsPerReq: number;
}

export const WINDOW_SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 9));

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** User and system CPU time (every thread, in seconds) a process has used so far, from /proc/<pid>/stat. */
export function cpuTimes(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / CLK_TCK, system: Number(fields[12]) / CLK_TCK };
}

/** CPU time (utime + stime of every thread, in seconds) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/**
 * A 1-second warm-up (not counted), then the timed window. CPU is read from /proc for `pid` right
 * before and right after the window; autocannon runs in this process, so its own CPU counts in
 * neither figure.
 */
export async function measure(load: Load, pid: number): Promise<Measurement> {
  await runOnce({ ...load, durationSeconds: 1, amount: undefined });
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  const m = await runOnce(load);
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(pid) - cpuBefore;
  return { ...m, rps: m.requests / seconds, cpuUsPerReq: (cpu * 1e6) / Math.max(1, m.requests) };
}

/** One short load window without warm-up, with the process's CPU read around it (see alternate). */
export interface Slice {
  cpuSeconds: number;
  requests: number;
  seconds: number;
  errors: number;
  unexpected: number;
  p99: number;
}

async function slice(load: Load, pid: number, seconds: number): Promise<Slice> {
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  const m = await runOnce({ ...load, durationSeconds: seconds, amount: undefined });
  return {
    cpuSeconds: cpuSeconds(pid) - cpuBefore,
    requests: m.requests,
    seconds: (performance.now() - started) / 1000,
    errors: m.errors,
    unexpected: m.unexpected,
    p99: m.p99,
  };
}

/** A round's slices of one target as one measurement: CPU and requests summed, the median p99. */
function joined(slices: Slice[]): Measurement {
  const sum = (f: (s: Slice) => number) => slices.reduce((t, s) => t + f(s), 0);
  const requests = sum((s) => s.requests);
  return {
    rps: requests / sum((s) => s.seconds),
    p99: median(slices.map((s) => s.p99)),
    errors: sum((s) => s.errors),
    unexpected: sum((s) => s.unexpected),
    requests,
    cpuUsPerReq: (sum((s) => s.cpuSeconds) * 1e6) / Math.max(1, requests),
  };
}

/** autocannon's per-request hook that sends `bodies` in turn. */
function rotating(bodies: string[]) {
  let next = 0;
  return <R extends object>(req: R): R & { body: string } => ({ ...req, body: bodies[next++ % bodies.length]! });
}

function runOnce(load: Load): Promise<Omit<Measurement, 'cpuUsPerReq'>> {
  let unexpected = 0;
  let responses = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: load.url + load.path,
        method: load.method ?? 'GET',
        headers: load.headers ?? {},
        ...(load.body !== undefined ? { body: load.body } : {}),
        ...(load.bodies !== undefined ? { requests: [{ setupRequest: rotating(load.bodies) }] } : {}),
        connections: load.connections ?? 20,
        ...(load.amount !== undefined ? { amount: load.amount } : { duration: load.durationSeconds ?? WINDOW_SECONDS }),
      },
      (err, result) => {
        if (err) return reject(err);
        resolve({ rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.timeouts, unexpected, requests: responses });
      },
    );
    instance.on('response', (_client, statusCode) => {
      responses++;
      if (load.expectStatus !== undefined && statusCode !== load.expectStatus) unexpected++;
    });
  });
}

/** Something measured in rounds: an HTTP load against a process, or a baseline process's own loop. */
export interface Target {
  pid: number;
  /** A 1-second warm-up, then one whole window. */
  run(): Promise<Measurement>;
  /** One short window without warm-up (HTTP loads): lets alternate interleave the targets finely. */
  slice?(seconds: number): Promise<Slice>;
}

export const httpTarget = (pid: number, load: Load): Target => ({
  pid,
  run: () => measure(load, pid),
  slice: (seconds) => slice(load, pid, seconds),
});

/** Slices per round (BENCH_SLICES, default 4): each round's window is cut into this many turns per target. */
export const SLICES = Math.max(1, Math.floor(Number(process.env.BENCH_SLICES ?? 4)));

/**
 * Runs the targets in turn, `rounds` times, so drifting background load on a shared machine hits
 * every target alike: the order reverses every other turn (A B, B A, A B, …), which also cancels
 * a steady drift between neighbours. One untimed pass first brings every process to its steady
 * state (JIT, caches, connection pools) before anything is counted. Returns each target's
 * measurements by round.
 *
 * When every target is an HTTP load, a round is SLICES turns of WINDOW_SECONDS / SLICES each per
 * target (A B B A A B B A for two), summed per target into the round's measurement. The machine's
 * own noise comes in episodes of several seconds (measured: a bare node:http server alone swings
 * between 14 and 27 µs per request from one 2-second window to the next); with whole 3-second
 * windows one episode often falls on one side of a pair only, and per-round ratios of the same two
 * processes spread from 0.52 to 1.23. Sliced, both sides share every episode: 0.76 to 0.99 in the
 * same session, with the same median.
 */
export async function alternate(targets: Target[], rounds = ROUNDS): Promise<Measurement[][]> {
  for (const t of targets) await t.run();
  const out: Measurement[][] = targets.map(() => []);
  const sliced = SLICES > 1 && targets.every((t) => t.slice !== undefined);
  let turn = 0;
  for (let i = 0; i < rounds; i++) {
    if (!sliced) {
      const order = [...targets.keys()];
      if (turn++ % 2 === 1) order.reverse();
      for (const k of order) out[k]!.push(await targets[k]!.run());
      continue;
    }
    const slices: Slice[][] = targets.map(() => []);
    for (let j = 0; j < SLICES; j++) {
      const order = [...targets.keys()];
      if (turn++ % 2 === 1) order.reverse();
      for (const k of order) slices[k]!.push(await targets[k]!.slice!(WINDOW_SECONDS / SLICES));
    }
    slices.forEach((s, k) => out[k]!.push(joined(s)));
  }
  return out;
}

export function median(values: number[]): number {
  const v = [...values].sort((x, y) => x - y);
  const h = Math.floor(v.length / 2);
  return v.length % 2 ? v[h]! : (v[h - 1]! + v[h]!) / 2;
}

/** Medians of every figure over the rounds; errors and unexpected statuses are summed. */
export interface Summary extends Measurement {
  rounds: number;
}

export function summarize(ms: Measurement[]): Summary {
  const mid = (f: (m: Measurement) => number) => median(ms.map(f));
  const sum = (f: (m: Measurement) => number) => ms.reduce((t, m) => t + f(m), 0);
  return {
    rps: mid((m) => m.rps),
    p99: mid((m) => m.p99),
    cpuUsPerReq: mid((m) => m.cpuUsPerReq),
    requests: sum((m) => m.requests),
    errors: sum((m) => m.errors),
    unexpected: sum((m) => m.unexpected),
    rounds: ms.length,
  };
}

/** A paired comparison: per round, baseline against the server measured right after it. */
export interface Compared {
  value: Summary;
  baseline: Summary;
  /** Median over rounds of server req/s ÷ baseline req/s. */
  rpsRatio: number;
  /** Median over rounds of baseline CPU per request ÷ server CPU per request (1 = same cost). */
  cpuRatio: number;
  /** Lowest and highest per-round CPU ratio. */
  cpuRange: [number, number];
  /** Every round's CPU ratio, in round order. */
  cpuRatios: number[];
}

export function compare(baseline: Measurement[], value: Measurement[]): Compared {
  const rounds = Math.min(baseline.length, value.length);
  const cpu: number[] = [];
  const rps: number[] = [];
  for (let i = 0; i < rounds; i++) {
    cpu.push(baseline[i]!.cpuUsPerReq / value[i]!.cpuUsPerReq);
    rps.push(value[i]!.rps / baseline[i]!.rps);
  }
  return {
    value: summarize(value),
    baseline: summarize(baseline),
    rpsRatio: median(rps),
    cpuRatio: median(cpu),
    cpuRange: [Math.min(...cpu), Math.max(...cpu)],
    cpuRatios: cpu,
  };
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

/** Every process a suite started and has not stopped: killed if the run ends without stopping them (a failed suite). */
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
}

/**
 * The node flags of `npm start` (package.json: `exec node <flags> dist/main.js`). Every node
 * process of the benchmarks runs with them, the server and its baselines alike, so the server runs
 * as `npm start` runs it and both sides of a ratio run the same runtime.
 */
export const SERVER_NODE_FLAGS: readonly string[] = startFlags(new URL('../package.json', import.meta.url));

/** `nodeFlags` come after the flags of `npm start` (diagnostic probes only; the suites pass none). */
export async function spawnNode(script: string, env: Record<string, string>, readyPath = '/healthz', nodeFlags: readonly string[] = []): Promise<Proc> {
  const port = await freePort();
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  // BENCH_PROFILE_DIR: the server writes a V8 CPU profile there when it stops (where its time goes).
  const profile = process.env.BENCH_PROFILE_DIR && script === 'dist/main.js' ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeFlags, ...profile, ...loader, script], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: env.LOG_LEVEL ?? 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  track(child);
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

/** The variables scripts/allocator.sh may set. */
const ALLOCATOR_VARIABLES: readonly string[] = ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_', 'GLIBC_TUNABLES'];

/**
 * glibc's allocator settings as `npm start` sets them on this machine (scripts/allocator.sh,
 * sourced the same way; a value set in this environment is kept, as npm start keeps it).
 */
export const SERVER_ALLOCATOR_ENV: Readonly<Record<string, string>> = Object.fromEntries(
  execFileSync('sh', ['-c', '. ./scripts/allocator.sh && env'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => ALLOCATOR_VARIABLES.some((name) => line.startsWith(`${name}=`)))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);

/** SERVER_ALLOCATOR_ENV in words, for the reports: `MALLOC_ARENA_MAX=2 …`. */
export const SERVER_ALLOCATOR_TEXT = Object.entries(SERVER_ALLOCATOR_ENV)
  .map(([k, v]) => `${k}=${v}`)
  .join(' ');

/**
 * One key for every server of a run: they share the run's database (a suite's instances behind
 * HAProxy, and the suites one after another), and the first start seals the OAuth signing keys
 * under it; a server with another key would log them unusable, as a misconfigured instance does.
 */
const SERVER_ENCRYPTION_KEY = process.env.ENCRYPTION_KEY ?? randomBytes(32).toString('base64');

/** The real server, on real PostgreSQL/Redis when BENCH_DATABASE_URL/BENCH_REDIS_URL are set. */
export async function startServer(env: Record<string, string> = {}): Promise<Proc & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tunnel-svc-bench-'));
  // glibc's allocator as `npm start` sets it (argon2's 19 MiB buffers: ADR 26).
  const base: Record<string, string> = {
    DATA_DIR: dataDir,
    ...SERVER_ALLOCATOR_ENV,
    // Production requires a key for the secrets at rest: a throwaway one per benchmark run.
    ENCRYPTION_KEY: SERVER_ENCRYPTION_KEY,
  };
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

/** The login baseline: a long-lived process verifying argon2id hashes on command (baselines/argon2.ts). */
export interface Argon2Baseline {
  pid: number;
  /** Verifications per second over a short run (to size the timed runs). */
  perSecond(seconds: number): Promise<number>;
  /** A 1-second warm-up, then `amount` verifications, with this process's CPU read around them. */
  target(amount: number): Target;
  stop(): Promise<void>;
}

function withoutAllocatorSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !ALLOCATOR_VARIABLES.includes(name)));
}

/**
 * `env` adds to this process's environment (without glibc's allocator settings unless given): the
 * login suite runs one baseline with the server's (the verification as the server runs it) and
 * one with glibc's defaults.
 */
export async function startArgon2Baseline(connections: number, env: Record<string, string> = {}): Promise<Argon2Baseline> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', 'bench/baselines/argon2.ts'], {
    env: { ...withoutAllocatorSettings(process.env), ...env, BENCH_CONNECTIONS: String(connections) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  track(child);
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`argon2 baseline exited with ${child.exitCode}`);
    return value as string;
  };
  if ((await next()) !== 'ready') throw new Error('argon2 baseline did not start');
  const command = async (cmd: { seconds?: number; amount?: number }) => {
    child.stdin!.write(JSON.stringify(cmd) + '\n');
    return JSON.parse(await next()) as { done: number; seconds: number };
  };
  return {
    pid: child.pid!,
    perSecond: async (seconds) => {
      const { done, seconds: took } = await command({ seconds });
      return done / took;
    },
    target: (amount) => ({
      pid: child.pid!,
      async run() {
        await command({ seconds: 1 });
        const before = cpuSeconds(child.pid!);
        const { done, seconds } = await command({ amount });
        const cpu = cpuSeconds(child.pid!) - before;
        return { rps: done / seconds, p99: 0, errors: 0, unexpected: 0, requests: done, cpuUsPerReq: (cpu * 1e6) / done };
      },
    }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin!.end();
        child.kill('SIGTERM');
      }),
  };
}

export interface Row {
  name: string;
  baselineName: string;
  compared: Compared;
  /** The floor on the CPU-per-request ratio (baseline ÷ server), e.g. 0.85. */
  floor?: number;
  /** How the floor reads in the table, when not simply `≥ floor`. */
  floorText?: string;
}

/** µs below 10 ms, ms above. */
export function cpuText(us: number): string {
  return us >= 10_000 ? `${(us / 1000).toFixed(1)} ms` : `${us.toFixed(1)} µs`;
}

export function ratioRow(r: Row): string {
  const { value, baseline, rpsRatio, cpuRatio, cpuRange } = r.compared;
  const floor = r.floor === undefined ? '' : `${r.floorText ?? `≥ ${r.floor}`}: ${cpuRatio >= r.floor ? 'met' : '**missed**'}`;
  return (
    `| ${r.name} | ${value.rps.toFixed(0)} | ${value.p99.toFixed(1)} | ${cpuText(value.cpuUsPerReq)} | ` +
    `${r.baselineName}: ${baseline.rps.toFixed(0)} req/s, ${cpuText(baseline.cpuUsPerReq)} | ${rpsRatio.toFixed(2)} | ` +
    `**${cpuRatio.toFixed(2)}** (${cpuRange[0].toFixed(2)}–${cpuRange[1].toFixed(2)}) | ${floor} |`
  );
}

export const TABLE_HEADER =
  '| benchmark | req/s | p99 ms | CPU/req | baseline (same run) | req/s ratio | CPU/req ratio: baseline ÷ server (range) | floor |\n' +
  '|---|---|---|---|---|---|---|---|';

export interface BenchResult {
  rows: Row[];
  notes: string[];
}

/** One GET with an explicit Host header (fetch cannot set it), for sampling what a suite measures. */
/** A JSON API call for a suite's setup (sign-up, login, tunnels); a status of 300 or more throws with the answer. */
export async function api(base: string, method: string, path: string, body?: unknown, token?: string): Promise<Record<string, unknown>> {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/**
 * Follows the verification link the server wrote to DATA_DIR/outbox (no SMTP in the benchmarks),
 * waiting up to 10 s for the email (and its folder) to appear.
 */
export async function verifyFromOutbox(url: string, dataDir: string): Promise<void> {
  const dir = join(dataDir, 'outbox');
  for (let i = 0; i < 100; i++) {
    const file = (existsSync(dir) ? readdirSync(dir, { withFileTypes: true }) : []).find((f) => f.name.includes('-verify-email-'));
    if (file) {
      const text = readFileSync(join(dir, file.name), 'utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      const token = /verify-email\?token=([a-z2-7]+)/.exec(text)?.[1];
      if (!token) throw new Error('no verification token in the outbox email');
      const res = await fetch(url + '/auth/verify-email', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
      if (res.status !== 200) throw new Error(`verify-email: ${res.status}`);
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no verification email in the outbox');
}

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
