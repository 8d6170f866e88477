// Builds what `npm start` runs: the Prisma client (scripts/generate.mjs), then src/ transpiled
// with esbuild (one .js file per .ts file, no bundling) plus the browser bundles. `npm start` runs
// the compiled files with plain node: faster start and about 45 MiB less resident memory than
// running the TypeScript through a loader. Type checking is `npm run typecheck`.
//
// Several instances may start from one checkout at once (three ports on one machine, a supervisor
// restarting one while another boots), so the build never pulls files from under a running one:
//   - one build at a time per checkout (a lock directory, `.build.lock`, freed if its owner died);
//   - each build goes to its own directory named by the hash of its inputs, `.dist-<hash>`, next
//     to `dist` (so paths relative to the build, like `../migrations`, still resolve), written
//     under a temporary name and renamed when complete;
//   - `dist` is a symlink swapped to the new build in one rename; a running process keeps the
//     build it resolved at start (node follows the link once), and nothing changed means no build.
// The five newest builds are kept. BUILD_LAYOUT=directory (the Dockerfile) builds straight into a
// plain `dist/` directory instead, where nothing runs concurrently.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from 'esbuild';
import { tsImport } from 'tsx/esm/api';

const LOCK = '.build.lock';
const KEEP = 5;
const LOCK_WAIT_MS = 5 * 60_000;

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)]));

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** One build at a time in this checkout; a lock left by a process that died is taken over. */
async function withLock(work) {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (taken) {
      if (taken.code !== 'EEXIST') throw taken;
      let owner = NaN;
      try {
        owner = Number(readFileSync(join(LOCK, 'pid'), 'utf8'));
      } catch {
        // Just made by its owner, pid not written yet; or stale without one (checked by age).
      }
      const stale = Number.isInteger(owner) ? !alive(owner) : Date.now() - statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs > 30_000;
      if (stale) {
        rmSync(LOCK, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${LOCK} is held by process ${owner}; remove it if no build is running`, { cause: taken });
      await sleep(100);
    }
  }
  writeFileSync(join(LOCK, 'pid'), String(process.pid));
  const release = () => rmSync(LOCK, { recursive: true, force: true });
  process.once('exit', release);
  try {
    return await work();
  } finally {
    release();
  }
}

function generate() {
  const result = spawnSync(process.execPath, ['scripts/generate.mjs'], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** Every input of the build: the sources (generated client included), the lock file, this script. */
function inputsHash() {
  const hash = createHash('sha256');
  for (const file of [...walk('src').sort(), 'package-lock.json', 'scripts/build.mjs']) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

async function compile(outdir) {
  // The browser bundles (entry points, output and esbuild options) are defined once, in
  // src/adapters/browser-bundle.ts, which bundles them in memory when running from the sources.
  const { BROWSER_BUNDLES } = await tsImport('../src/adapters/browser-bundle.ts', import.meta.url);
  // Browser code is bundled below, not transpiled for node.
  const browserDirs = BROWSER_BUNDLES.flatMap((b) => b.entryPoints.map((e) => join('src', dirname(e.in))));
  const sources = walk('src').filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  await build({
    entryPoints: sources.filter((f) => !browserDirs.some((dir) => f.startsWith(dir))),
    outdir,
    outbase: 'src',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  for (const bundle of BROWSER_BUNDLES) {
    await build({
      ...bundle.options,
      entryPoints: bundle.entryPoints.map((e) => ({ in: join('src', e.in), out: e.out })),
      outdir: join(outdir, bundle.outdir),
      logLevel: 'warning',
    });
  }
}

/** Points `dist` at `target` in one rename (a plain `dist/` directory of an older checkout goes first). */
function pointDistAt(target) {
  const current = lstatSync('dist', { throwIfNoEntry: false });
  if (current?.isSymbolicLink() && readlinkSync('dist') === target) return;
  if (current && !current.isSymbolicLink()) rmSync('dist', { recursive: true, force: true });
  const link = `dist.link-${process.pid}`;
  rmSync(link, { force: true });
  symlinkSync(target, link);
  renameSync(link, 'dist');
}

/** Keeps the newest builds (and the current one); older ones and leftovers of failed builds go. */
function prune(current) {
  const builds = readdirSync('.')
    .filter((n) => n.startsWith('.dist-'))
    .map((name) => ({ name, at: statSync(name).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  let kept = 0;
  for (const b of builds) {
    const partial = b.name.includes('.tmp-');
    if (b.name === current || (!partial && kept++ < KEEP)) continue;
    if (partial && alive(Number(b.name.split('.tmp-')[1]))) continue;
    rmSync(b.name, { recursive: true, force: true });
  }
}

if (process.env.BUILD_LAYOUT === 'directory') {
  generate();
  rmSync('dist', { recursive: true, force: true });
  await compile('dist');
} else {
  await withLock(async () => {
    generate();
    const target = `.dist-${inputsHash()}`;
    if (existsSync(join(target, '.complete'))) {
      // The same inputs were built before: marked as the newest, nothing compiled.
      const now = new Date();
      utimesSync(target, now, now);
      process.stderr.write(`build: up to date (${target})\n`);
    } else {
      const tmp = `${target}.tmp-${process.pid}`;
      rmSync(tmp, { recursive: true, force: true });
      rmSync(target, { recursive: true, force: true });
      await compile(tmp);
      writeFileSync(join(tmp, '.complete'), `${new Date().toISOString()}\n`);
      renameSync(tmp, target);
    }
    pointDistAt(target);
    prune(target);
  });
}
