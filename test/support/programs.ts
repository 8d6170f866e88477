// Real programs from Debian packages (redis-server, pgbouncer, haproxy) started by tests on free
// loopback ports and stopped after them. A test that needs one is reported as skipped, with the
// reason, where the program is not installed (CI installs them; see .ci/run).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SBIN = ['/usr/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin'];

/** The program's absolute path, or null when it is not installed. */
export function which(program: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' });
  if (r.status === 0 && r.stdout.trim()) return r.stdout.trim();
  for (const dir of SBIN) if (existsSync(join(dir, program))) return join(dir, program);
  return null;
}

/** node:test options that skip, naming what is missing, unless every program is installed. */
export function needsPrograms(programs: string[], why: string): { skip?: string } {
  const missing = programs.filter((p) => which(p) === null);
  return missing.length === 0 ? {} : { skip: `needs ${missing.join(', ')} (apt-get install ${missing.join(' ')}): ${why}` };
}

/** A loopback TCP port free right now (and, with `plus`, port + plus free too: Redis Cluster's bus). */
export async function freePort(plus?: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    if (plus === undefined) return port;
    if (port + plus <= 65535 && (await isFree(port + plus))) return port;
  }
  throw new Error('no free port pair found');
}

async function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** Resolves once something accepts TCP connections on the port; rejects after timeoutMs. */
export async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = new Socket();
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => (s.destroy(), resolve(false)));
      s.connect(port, '127.0.0.1');
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await sleep(50);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A child process whose output goes to a log file (shown when it fails to start). */
export class Daemon {
  private exited = false;
  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly logFile: string,
  ) {
    child.once('exit', () => {
      this.exited = true;
    });
  }

  static start(name: string, program: string, args: string[], dir: string, env?: NodeJS.ProcessEnv): Daemon {
    const logFile = join(dir, `${name}.log`);
    const out = createWriteStream(logFile);
    const child = spawn(which(program) ?? program, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    return new Daemon(name, child, logFile);
  }

  get running(): boolean {
    return !this.exited;
  }

  log(): string {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8').slice(-2000) : '';
  }

  /** SIGKILL (a crash) or SIGTERM; resolves once the process is gone. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 5000): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((r) => this.child.once('exit', () => r()));
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    await gone;
    clearTimeout(timer);
  }
}

export interface ScratchDir {
  dir: string;
  remove(): void;
}

/** A scratch directory removed by remove(). */
export function scratchDir(prefix: string): ScratchDir {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * After a start that failed: kills the daemons, removes their directory and returns the error
 * with their logs (`throw await failedStart(...)`), so nothing is left behind but the reason.
 */
export async function failedStart(err: unknown, daemons: Daemon[], scratch: ScratchDir, what = ''): Promise<Error> {
  await Promise.all(daemons.map((d) => d.stop('SIGKILL')));
  const logs = daemons.map((d) => d.log()).join('\n');
  scratch.remove();
  return new Error(`${what}${(err as Error).message}\n${logs}`, { cause: err });
}

export interface Program {
  port: number;
  /** Stops the program and removes its directory. */
  close(): Promise<void>;
}

/**
 * One program on a free loopback port, in a scratch directory of its own: `configure` writes its
 * files there and returns its arguments. Resolves once the port accepts connections.
 */
export async function startProgram(
  program: string,
  configure: (dir: string, port: number) => string[],
  stopSignal: NodeJS.Signals = 'SIGTERM',
): Promise<Program> {
  const scratch = scratchDir(program);
  const daemons: Daemon[] = [];
  try {
    const port = await freePort();
    const daemon = Daemon.start(program, program, configure(scratch.dir, port), scratch.dir);
    daemons.push(daemon);
    await waitForPort(port);
    return {
      port,
      async close() {
        await daemon.stop(stopSignal);
        scratch.remove();
      },
    };
  } catch (err) {
    throw await failedStart(err, daemons, scratch, `${program} did not start: `);
  }
}
