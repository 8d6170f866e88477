// `npm test`: every test/**/*.test.ts file (or the files and folders named on the command line)
// with node's test runner, several files at a time (TEST_JOBS, default: two per core). Each worker
// slot has what a file may change for itself: with DATABASE_URL, a database of its own (created
// here, dropped after) and, with REDIS_URL, a Redis database of its own (the given number plus
// the slot's); without DATABASE_URL, every test server copies one embedded database initialized
// and migrated once per run (TEST_PGLITE_TEMPLATE) instead of creating and migrating its own.
// Files run up to eight to a process (TEST_FILES_PER_PROCESS, below). A process's output is
// printed whole when it ends; the run ends with one line of totals and the files that failed.
import { Buffer } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import pg from 'pg';

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(join(dir, d.name)) : d.name.endsWith('.test.ts') ? [join(dir, d.name)] : [],
  );
const named = process.argv.slice(2);
const files = (named.length > 0 ? named.flatMap((p) => (statSync(p).isDirectory() ? walk(p) : [p])) : walk('test')).sort();
// Two files per core: a test spends much of its time waiting (on a server, a browser, a clock), so
// a second file per core keeps the cores busy (docs/testing.md has the lanes' times).
const jobs = Math.max(1, Math.min(files.length, 8, Number(process.env.TEST_JOBS) || 2 * availableParallelism()));

// --test-force-exit: a file whose tests are done ends even if a failed test leaked a handle (a
// client still retrying a stopped Redis node), so a failure fails the run instead of hanging it;
// --test-timeout bounds any single test (10 minutes, far above the slowest).
const NODE_ARGS = ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-force-exit', '--test-timeout=600000', '--test-reporter=spec'];

// V8's code cache on disk (node's module compile cache): each file's process compiles the same
// few hundred modules; with the cache, only the first one does.
const compileCache = process.env.NODE_COMPILE_CACHE ?? join('node_modules', '.cache', 'node-compile');

const cleanups = [];
const slots = [];
const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl) {
  // The workers' databases are made from this connection: the named database, or, when it does
  // not exist yet, the server's maintenance database (`postgres`).
  let admin = new pg.Client({ connectionString: databaseUrl });
  try {
    await admin.connect();
  } catch (err) {
    if (err?.code !== '3D000') throw err;
    const maintenance = new URL(databaseUrl);
    maintenance.pathname = '/postgres';
    admin = new pg.Client({ connectionString: maintenance.toString() });
    await admin.connect();
  }
  const base = new URL(databaseUrl).pathname.slice(1);
  for (let i = 0; i < jobs; i++) {
    const name = `${base}_w${i}`;
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
    const url = new URL(databaseUrl);
    url.pathname = `/${name}`;
    slots.push({ DATABASE_URL: url.toString() });
  }
  cleanups.push(async () => {
    for (const slot of slots) await admin.query(`DROP DATABASE IF EXISTS "${new URL(slot.DATABASE_URL).pathname.slice(1)}" WITH (FORCE)`).catch(() => {});
    await admin.end();
  });
} else {
  const dir = mkdtempSync(join(tmpdir(), 'tunnel-svc-template-'));
  const made = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/test-template.ts', dir], { stdio: 'inherit' });
  if (made.status !== 0) process.exit(made.status ?? 1);
  for (let i = 0; i < jobs; i++) slots.push({ TEST_PGLITE_TEMPLATE: join(dir, 'pglite') });
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
}
const redisUrl = process.env.REDIS_URL;
if (redisUrl) {
  const url = new URL(redisUrl);
  const first = Number(url.pathname.slice(1) || 0);
  if (first + jobs > 16) throw new Error(`REDIS_URL's database ${first} leaves no room for ${jobs} workers (databases ${first}..${first + jobs - 1} of 16)`);
  slots.forEach((slot, i) => {
    url.pathname = `/${first + i}`;
    slot.REDIS_URL = url.toString();
    spawnSync('redis-cli', ['-u', slot.REDIS_URL, 'FLUSHDB'], { stdio: 'ignore' });
  });
}

const totals = { tests: 0, pass: 0, fail: 0, skipped: 0, cancelled: 0, todo: 0 };
const failedFiles = [];
const queue = [...files];
const started = Date.now();

/** Runs node's test runner on `script` in the slot's environment; prints its output whole (under `header`, or what it returns at the end) and adds its totals. Resolves with its output and exit code. */
function runTests(script, header, slot) {
  return new Promise((done) => {
    const out = [];
    const child = spawn(process.execPath, [...NODE_ARGS, script], { env: { ...process.env, NODE_COMPILE_CACHE: compileCache, ...slot }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('close', (code) => {
      const text = Buffer.concat(out).toString('utf8');
      process.stdout.write(`\n# ${typeof header === 'function' ? header() : header}\n${text}`);
      for (const key of Object.keys(totals)) {
        const m = new RegExp(`^ℹ ${key} (\\d+)$`, 'm').exec(text);
        if (m) totals[key] += Number(m[1]);
      }
      done({ text, code });
    });
  });
}

// Each file starts on an empty Redis database, as it starts on a fresh PostgreSQL one: a
// service-wide counter (wrong device codes a minute, say) left by the worker's previous file must
// not refuse this file's first attempt.
const flushArgs = (slot) => ['-u', slot.REDIS_URL, 'FLUSHDB'];

async function runFile(file, slot) {
  if (slot.REDIS_URL) spawnSync('redis-cli', flushArgs(slot), { stdio: 'ignore' });
  const { code } = await runTests(file, file, slot);
  if (code !== 0) failedFiles.push(file);
}

/**
 * TEST_FILES_PER_PROCESS=N (default PER_PROCESS): a worker's process runs up to N files one after
 * another, which loads the code once instead of once per file (loading it was most of a small
 * file's CPU). The process takes its files from the run's queue one at a time, as it is ready for
 * the next (a loopback HTTP endpoint of this runner), so the slots stay busy to the end of the run
 * instead of waiting on one slot's long batch. Each file runs inside a test of its own, named by
 * its path: its top-level code runs at its turn, its top-level hooks stay its own (a file's
 * `before`/`after` attach to the enclosing test, as they attach to the root in a process of its
 * own), and it starts on an empty Redis database. TEST_FILES_PER_PROCESS=1: a process per file.
 */
const PER_PROCESS = 8;
const perProcess = Math.max(1, Math.floor(Number(process.env.TEST_FILES_PER_PROCESS) || PER_PROCESS));
const costs = [];

/** The files each running process has taken from the queue, by process number. */
const taken = new Map();
let queueUrl = null;
if (perProcess > 1) {
  const server = createServer((req, res) => {
    const file = queue.shift();
    const proc = Number(new URL(req.url, 'http://localhost').searchParams.get('process'));
    if (file === undefined) return res.writeHead(204).end();
    taken.get(proc)?.push(file);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(file);
  });
  await new Promise((listening) => server.listen(0, '127.0.0.1', listening));
  queueUrl = `http://127.0.0.1:${server.address().port}/next`;
  cleanups.push(() => new Promise((closed) => server.close(closed)));
}

// The process's one script: an outer test that takes files until the queue is empty or it has
// run TEST_QUEUE_TAKE of them, each file a subtest of it. A timer holds the event loop open while a
// file loads: the TypeScript loader answers from a thread of its own, and with nothing else
// pending node would end the process meanwhile.
const WRAPPER = `import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const { TEST_QUEUE_URL, TEST_QUEUE_TAKE, TEST_QUEUE_PROCESS, REDIS_URL } = process.env;
// A connection per question (agent: false): a kept-alive one may be closed by the runner's idle
// timeout just as it is reused, while a file ran.
const next = () =>
  new Promise((resolve, reject) => {
    request(\`\${TEST_QUEUE_URL}?process=\${TEST_QUEUE_PROCESS}\`, { method: 'POST', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d) => (body += d)).on('end', () => resolve(res.statusCode === 200 ? body : null));
    }).on('error', reject).end();
  });

test('files', { timeout: Infinity }, async (t) => {
  for (let n = 0; n < Number(TEST_QUEUE_TAKE); n++) {
    const file = await next();
    if (file === null) break;
    await t.test(file, { timeout: 600_000 }, async (ft) => {
      if (REDIS_URL) spawnSync('redis-cli', ['-u', REDIS_URL, 'FLUSHDB'], { stdio: 'ignore' });
      const cpu = process.cpuUsage();
      ft.after(() => {
        const u = process.cpuUsage(cpu);
        process.stdout.write(\`\\n# cpu \${file} \${Math.round((u.user + u.system) / 1000)}\\n\`);
      });
      const hold = setInterval(() => {}, 60_000);
      try {
        await import(pathToFileURL(file).href);
      } finally {
        clearInterval(hold);
      }
    });
  }
});
`;
let wrapper = null;
if (perProcess > 1) {
  const dir = mkdtempSync(join(tmpdir(), 'tunnel-svc-queue-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  wrapper = join(dir, 'files.mjs');
  writeFileSync(wrapper, WRAPPER);
}
let processes = 0;

/** One process that takes up to `perProcess` files from the queue; its files are those it took. */
async function runFromQueue(slot) {
  const proc = processes++;
  const files = [];
  taken.set(proc, files);
  const { text, code } = await runTests(wrapper, () => files.join(', '), { ...slot, TEST_QUEUE_URL: queueUrl, TEST_QUEUE_TAKE: String(perProcess), TEST_QUEUE_PROCESS: String(proc) });
  taken.delete(proc);
  // The file tests' lines in the tree (under the outer test) say how each file ended.
  // They and the outer test are the runner's, not the suite's: taken out of the totals.
  const lines = (mark, name) => [...text.matchAll(new RegExp(`^${mark} (${name}) \\(`, 'gm'))].map((m) => m[1]);
  const passed = new Set(lines(' {2}✔', 'test/\\S+\\.test\\.ts'));
  // (A failed outer test is listed twice: in the tree and in the failures at the end.)
  const ownPassed = passed.size + (/^✔ files \(/m.test(text) ? 1 : 0);
  const ownFailed = lines(' {2}✖', 'test/\\S+\\.test\\.ts').length + (/^✖ files \(/m.test(text) ? 1 : 0);
  totals.tests -= ownPassed + ownFailed;
  totals.pass -= ownPassed;
  totals.fail -= ownFailed;
  for (const m of text.matchAll(/^# cpu (test\/\S+\.test\.ts) (\d+)$/gm)) costs.push({ file: m[1], cpu: Number(m[2]) });
  // A file that did not end (the process died on its way) failed; a process that ended badly
  // after its files passed (a stray process.exit) fails the run too.
  for (const f of files) if (!passed.has(f)) failedFiles.push(f);
  if (code !== 0 && files.every((f) => passed.has(f))) failedFiles.push(`${files.join(', ')} (their process exited with code ${code})`);
}

async function worker(slot) {
  if (perProcess === 1) {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) await runFile(file, slot);
    return;
  }
  while (queue.length > 0) await runFromQueue(slot);
}

try {
  await Promise.all(slots.map(worker));
} finally {
  for (const cleanup of cleanups) await cleanup();
}
const seconds = Math.round((Date.now() - started) / 1000);
process.stdout.write(`\n${files.length} files, ${jobs} at a time, ${seconds} s; tests ${totals.tests}, skipped ${totals.skipped}, cancelled ${totals.cancelled}, todo ${totals.todo}\n`);
if (costs.length > 0) {
  costs.sort((a, b) => b.cpu - a.cpu);
  const total = costs.reduce((sum, c) => sum + c.cpu, 0);
  process.stdout.write(`CPU of the files' own work ${Math.round(total / 1000)} s; the most:\n${costs.slice(0, 12).map((c) => `  ${(c.cpu / 1000).toFixed(1).padStart(6)} s  ${c.file}`).join('\n')}\n`);
}
if (failedFiles.length > 0) process.stdout.write(`failed files:\n${failedFiles.map((f) => `  ${f}`).join('\n')}\n`);
process.stdout.write(`${totals.pass} passed, ${totals.fail + (failedFiles.length > 0 && totals.fail === 0 ? failedFiles.length : 0)} failed\n`);
process.exit(failedFiles.length > 0 ? 1 : 0);
