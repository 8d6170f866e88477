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
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
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

/** Runs node's test runner on `script` in the slot's environment; prints its output whole and adds its totals. Resolves with its output and exit code. */
function runTests(script, header, slot) {
  return new Promise((done) => {
    const out = [];
    const child = spawn(process.execPath, [...NODE_ARGS, script], { env: { ...process.env, NODE_COMPILE_CACHE: compileCache, ...slot }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('close', (code) => {
      const text = Buffer.concat(out).toString('utf8');
      process.stdout.write(`\n# ${header}\n${text}`);
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
 * TEST_FILES_PER_PROCESS=N (default PER_PROCESS): a worker runs up to N files one after another
 * in one process, which loads the code once instead of once per file (loading it was most of a
 * small file's CPU). Each file runs inside a test of its own, named by its path: its top-level
 * code runs at its turn, its top-level hooks stay its own (a file's `before`/`after` attach to the
 * enclosing test, as they attach to the root in a process of its own), and it starts on an empty
 * Redis database. TEST_FILES_PER_PROCESS=1: a process per file.
 */
const PER_PROCESS = 8;
const perProcess = Math.max(1, Math.floor(Number(process.env.TEST_FILES_PER_PROCESS) || PER_PROCESS));
const groupDir = perProcess > 1 ? mkdtempSync(join(tmpdir(), 'tunnel-svc-groups-')) : null;
if (groupDir) cleanups.push(async () => rmSync(groupDir, { recursive: true, force: true }));
let groups = 0;
const costs = [];

async function runGroup(group, slot) {
  const wrapper = join(groupDir, `group-${groups++}.mjs`);
  const flush = slot.REDIS_URL ? `spawnSync('redis-cli', ${JSON.stringify(flushArgs(slot))}, { stdio: 'ignore' });` : '';
  writeFileSync(
    wrapper,
    `import { spawnSync } from 'node:child_process';\nimport { test } from 'node:test';\n` +
      // Registered at once and run one after another (a file's tests run in order). A timer holds
      // the event loop open while a file loads: the TypeScript loader answers from a thread of its
      // own, and with nothing else pending node would end the process meanwhile.
      group
        .map((f) => `test(${JSON.stringify(f)}, { timeout: 600_000 }, async (t) => {\n  ${flush}\n  const cpu = process.cpuUsage();\n  t.after(() => { const u = process.cpuUsage(cpu); process.stdout.write(\`\\n# cpu ${f} \${Math.round((u.user + u.system) / 1000)}\\n\`); });\n  const hold = setInterval(() => {}, 60_000);\n  try {\n    await import(${JSON.stringify(pathToFileURL(resolve(f)).href)});\n  } finally {\n    clearInterval(hold);\n  }\n});\n`)
        .join(''),
  );
  const { text } = await runTests(wrapper, group.join(', '), slot);
  // The wrappers are tests too: their lines at the margin say how each file ended.
  const ended = (mark) => new Set([...text.matchAll(new RegExp(`^${mark} (test/\\S+\\.test\\.ts) \\(`, 'gm'))].map((m) => m[1]));
  for (const m of text.matchAll(/^# cpu (test\/\S+\.test\.ts) (\d+)$/gm)) costs.push({ file: m[1], cpu: Number(m[2]) });
  const passed = ended('✔');
  const failed = ended('✖');
  totals.tests -= passed.size + failed.size;
  totals.pass -= passed.size;
  totals.fail -= failed.size;
  // A file that did not end (the process died on its way) failed.
  for (const f of group) if (!passed.has(f)) failedFiles.push(f);
}

async function worker(slot) {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (perProcess === 1) {
      await runFile(file, slot);
      continue;
    }
    const group = [file];
    while (group.length < perProcess && queue.length > 0) group.push(queue.shift());
    await runGroup(group, slot);
  }
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
