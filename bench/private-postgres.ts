// A PostgreSQL cluster of the benchmark's own (`npm run bench:scale`): initdb into a scratch
// directory, started on a free loopback port with the settings the run names, stopped and removed
// after. The machine's PostgreSQL is left alone (its settings, its other databases' load), and
// PostgreSQL's CPU is counted on this cluster's processes only.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './lib.js';

export interface PrivatePostgres {
  /** postgresql://postgres@127.0.0.1:<port>/ followed by a database name. */
  urlOf(db: string): string;
  /** The postmaster's pid: its children are the cluster's processes. */
  pid: number;
  /** Its data directory's parent (and socket directory, and postgres.log). */
  dir: string;
  /** Its data directory (pg_wal is in it). */
  data: string;
  stop(): Promise<void>;
}

/** The newest PostgreSQL's binaries of Debian's layout (/usr/lib/postgresql/<major>/bin). */
export function binaries(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a)) : [];
  const dir = majors.map((m) => join(root, m, 'bin')).find((d) => existsSync(join(d, 'initdb')));
  if (!dir) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql (apt-get install postgresql)');
  return dir;
}

/** PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` user. */
function asOwner(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('running as root needs a `postgres` user to own the cluster');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** A PostgreSQL memory setting ('10GB', '512MB', '8192kB') in bytes. */
export function settingBytes(value: string): number {
  const m = /^(\d+)\s*(kB|MB|GB|TB)?$/.exec(value.trim());
  if (!m) throw new Error(`not a memory setting: ${value}`);
  const unit = { kB: 2 ** 10, MB: 2 ** 20, GB: 2 ** 30, TB: 2 ** 40 }[m[2] ?? 'kB']!;
  return Number(m[1]) * unit;
}

/** A field of /proc/meminfo (its number: kB for sizes, a count for HugePages_*), 0 when absent. */
function meminfoField(text: string, field: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? 0);
}

export interface HugePages {
  /** Enough free huge pages for the cluster's shared memory: start it with huge_pages=on. */
  available: boolean;
  /** Huge pages the cluster's shared memory needs, and the machine's (total, free; 0 when it has none). */
  need: number;
  total: number;
  free: number;
  /** When not available: what is missing and how to provide it (one paragraph). */
  advice: string;
}

/**
 * Whether the machine has free huge pages for a cluster with `sharedBuffers` of shared buffers,
 * read from /proc/meminfo. Only reads: reserving huge pages (vm.nr_hugepages) is the operator's
 * decision, made before the run; the advice says how. Without them every backend faults in,
 * 4 kB at a time, each page of shared memory it touches first, which on a large set with large
 * shared buffers is nearly every page a request touches (bench/README.md, "bench:scale").
 */
export function checkHugePages(sharedBuffers: string, meminfo = readFileSync('/proc/meminfo', 'utf8')): HugePages {
  const pageKb = meminfoField(meminfo, 'Hugepagesize');
  const total = meminfoField(meminfo, 'HugePages_Total');
  const free = meminfoField(meminfo, 'HugePages_Free');
  if (pageKb === 0) {
    return { available: false, need: 0, total, free, advice: 'the kernel offers no huge pages (no Hugepagesize in /proc/meminfo)' };
  }
  // Shared buffers, their descriptors and the rest of shared memory (locks, WAL buffers, ...).
  const need = Math.ceil((settingBytes(sharedBuffers) * 1.04 + 256 * 2 ** 20) / (pageKb * 1024));
  if (free >= need) return { available: true, need, total, free, advice: '' };
  const advice =
    `${free} free huge pages of ${pageKb} kB, ${need} needed for shared_buffers=${sharedBuffers}. ` +
    `To provide them, as root before the run: sysctl -w vm.nr_hugepages=${total + need - free} ` +
    `(and back to ${total} afterwards); or set SCALE_SHARED_BUFFERS lower, or SCALE_POSTGRES_URL to a server of your own`;
  return { available: false, need, total, free, advice };
}

/** SCALE_HUGE_PAGES: `auto` (the default) uses them when free; `require` stops without them; `off` never asks for them. */
export type HugePagesMode = 'auto' | 'require' | 'off';

export function hugePagesMode(value: string | undefined): HugePagesMode {
  const mode = value ?? 'auto';
  if (mode === 'auto' || mode === 'require' || mode === 'off') return mode;
  throw new Error(`SCALE_HUGE_PAGES must be auto, require or off (got ${JSON.stringify(value)})`);
}

/**
 * The cluster's huge_pages setting for a mode and what the machine has, with the line to print
 * when the run goes on without them. `require` without enough free pages stops the run here,
 * before anything starts, with the advice.
 */
export function hugePagesSetting(mode: HugePagesMode, check: HugePages): { setting: 'on' | 'off'; warning: string | null } {
  if (mode === 'off') return { setting: 'off', warning: null };
  if (check.available) return { setting: 'on', warning: null };
  if (mode === 'require') throw new Error(`SCALE_HUGE_PAGES=require: ${check.advice}.`);
  return {
    setting: 'off',
    warning:
      `bench:scale runs without huge pages: ${check.advice}. Figures of a run without them are not ` +
      'comparable with runs on huge pages (bench/README.md); SCALE_HUGE_PAGES=require stops instead.',
  };
}

/** `keep`: the cluster runs in a process group of its own, so it outlives this process when asked to. */
export async function startPrivatePostgres(settings: Record<string, string>, keep = false): Promise<PrivatePostgres> {
  const bin = binaries();
  const owner = asOwner();
  const dir = mkdtempSync(join(tmpdir(), 'bench-pg-'));
  const data = join(dir, 'data');
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chmodSync(dir, 0o700);
  }
  const run = { ...(owner ? { uid: owner.uid, gid: owner.gid } : {}), cwd: dir, stdio: 'pipe' as const };
  execFileSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8'], run);
  const port = await freePort();
  const args = ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1'];
  for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);
  // Its log in a file (it outlives this process when the run keeps the cluster: SCALE_KEEP).
  const logFile = join(dir, 'postgres.log');
  const fd = openSync(logFile, 'a');
  if (owner) chownSync(logFile, owner.uid, owner.gid);
  const child: ChildProcess = spawn(join(bin, 'postgres'), args, { ...run, stdio: ['ignore', fd, fd], detached: keep });
  closeSync(fd);
  const log = () => readFileSync(logFile, 'utf8').slice(-4000);
  const url = (db: string) => `postgresql://postgres@127.0.0.1:${port}/${db}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const c = new pg.Client(url('postgres'));
    try {
      await c.connect();
      await c.end();
      break;
    } catch {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        const text = log();
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`the benchmark's PostgreSQL did not start:\n${text}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    dir,
    data,
    urlOf: url,
    pid: child.pid!,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGINT'); // fast shutdown
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The cluster's processes: the postmaster and its children (backends, background workers). */
export function clusterPids(postmaster: number): number[] {
  const pids = [postmaster];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) pids.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return pids;
}
