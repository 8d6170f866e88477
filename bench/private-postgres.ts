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
  stop(): Promise<void>;
}

/** The newest PostgreSQL's binaries of Debian's layout (/usr/lib/postgresql/<major>/bin). */
function binaries(): string {
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
