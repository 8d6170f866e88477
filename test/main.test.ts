// The process as `npm start` runs it: embedded defaults, data kept in DATA_DIR across restarts,
// and a clean exit on SIGTERM and SIGINT.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { request } from './support/http.js';

const dataDir = mkdtempSync(join(tmpdir(), 'lifecycle-test-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** Starts src/main.ts with no DATABASE_URL / REDIS_URL / SMTP_URL (the zero-service defaults). */
function start(): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line within 60 s:\n${out}`)), 60_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => reject(new Error(`exited with ${code} before listening:\n${out}`)));
  });
}

/** Resident memory of the process, in MiB. */
function rssMiB(r: Running): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${r.child.pid}/status`, 'utf8'))?.[1] ?? 0);
  return kb / 1024;
}

/**
 * What stays resident once the server is idle: the lowest reading over up to SETTLE_MS, sampled
 * every quarter second, returned as soon as one is under `limit`. Right after start-up the heap
 * still holds what loading and the first requests left behind; V8 gives it back only after a few
 * seconds of idleness (its memory reducer), so a single early reading measures when the collector
 * last ran rather than what the server keeps.
 */
async function settledRssMiB(r: Running, limit: number): Promise<number> {
  let lowest = rssMiB(r);
  for (const end = Date.now() + SETTLE_MS; lowest >= limit && Date.now() < end; ) {
    await new Promise((done) => setTimeout(done, 250));
    lowest = Math.min(lowest, rssMiB(r));
  }
  return lowest;
}

/**
 * The embedded PostgreSQL's memory is the process's (src/infra/db/embedded.ts): initdb runs in a
 * worker thread and shared_buffers is 16 MB, which is what keeps these limits (tsx compiling the
 * sources, no MALLOC_ARENA_MAX) far below what the process held when initdb ran in the main
 * thread with 128 MB of shared buffers. The restart's login fires a PL/pgSQL trigger (the account
 * view's version, ADR 25), and the first trigger an embedded database runs loads the PL/pgSQL
 * interpreter into its memory. The figures behind the limits are in bench/HISTORY.md.
 */
const FIRST_START_RSS_MIB = 600;
const RESTART_RSS_MIB = 440;
/** How long settledRssMiB waits at most for the heap to be given back. */
const SETTLE_MS = 30_000;

function stop(r: Running, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    r.child.removeAllListeners('exit');
    r.child.once('exit', (code) => resolve(code));
    r.child.kill(signal);
  });
}

test('the embedded server keeps its data across a restart and exits cleanly on SIGTERM and SIGINT', async () => {
  const email = `lifecycle-${Date.now()}@example.com`;
  const password = 'kept across restarts';

  const first = await start();
  assert.match(first.output(), /embedded \(PGlite\)/);
  // Started without npm start's settings: it says which (src/infra/runtime-flags.ts).
  assert.match(first.output(), /MALLOC_ARENA_MAX is not set/);
  const signup = await request(first.url, '/auth/signup', { method: 'POST', body: { email, password } });
  assert.equal(signup.status, 201);
  const firstRss = await settledRssMiB(first, FIRST_START_RSS_MIB);
  assert.ok(firstRss < FIRST_START_RSS_MIB, `resident memory after a first start ${firstRss.toFixed(0)} MiB`);
  assert.equal(await stop(first, 'SIGTERM'), 0);
  assert.match(first.output(), /shutting down/);

  const second = await start();
  const login = await request(second.url, '/auth/login', { method: 'POST', body: { email, password } });
  assert.equal(login.status, 200, 'the account created before the restart signs in');
  const secondRss = await settledRssMiB(second, RESTART_RSS_MIB);
  assert.ok(secondRss < RESTART_RSS_MIB, `resident memory after a restart ${secondRss.toFixed(0)} MiB`);
  assert.equal(await stop(second, 'SIGINT'), 0);
  // Exit status 0 means every shutdown step, the embedded database's close included, succeeded.
  for (const r of [first, second]) assert.doesNotMatch(r.output(), /shutdown step failed|closing failed/);
});
