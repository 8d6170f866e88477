// `npm start` builds before it runs (scripts/build.mjs), and several instances may start from one
// checkout at once: the build must never take files away from a neighbour. Each test works in a
// scratch copy of the project (sources, scripts, schema, migrations; node_modules linked), so the
// checkout's own build is never touched.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { request } from '../support/http.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function projectCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'build-test-'));
  for (const entry of ['src', 'scripts', 'migrations', 'package.json', 'package-lock.json', 'schema.prisma', 'prisma.config.ts', 'tsconfig.json']) {
    cpSync(join(ROOT, entry), join(dir, entry), { recursive: true, filter: (from) => !from.includes(`${join('src', 'generated')}`) });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const builds = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('.dist-')).sort();

function runBuild(dir: string): { status: number | null; output: string } {
  const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

interface Started {
  child: ChildProcess;
  url: Promise<string>;
  output: () => string;
}

/** `npm start` in `dir` (embedded database in its own DATA_DIR, any free port). */
function npmStart(dir: string, name: string): Started {
  const dataDir = join(dir, `.data-${name}`);
  mkdirSync(dataDir);
  const child = spawn('npm', ['start'], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  const url = new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: no listening line within 120 s:\n${out}`)), 120_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening:\n${out}`));
    });
  });
  url.catch(() => {});
  return { child, url, output: () => out };
}

function stop(s: Started): Promise<void> {
  return new Promise((resolveStop) => {
    if (s.child.exitCode !== null) return resolveStop();
    s.child.removeAllListeners('exit');
    s.child.once('exit', () => resolveStop());
    // npm and node: the whole process group.
    process.kill(-s.child.pid!, 'SIGTERM');
  });
}

test('three npm start at once from one checkout: every one builds or reuses the build, and all three serve', async () => {
  const dir = projectCopy();
  const started = ['a', 'b', 'c'].map((name) => npmStart(dir, name));
  try {
    const urls = await Promise.all(started.map((s) => s.url));
    for (const url of urls) {
      const health = await request(url, '/healthz');
      assert.equal(health.status, 200, health.text);
      assert.equal((await request(url, '/assets/console.js')).status, 200, 'the built browser bundle is there');
    }
    // One build for the three (the others found it up to date), and dist points at it.
    assert.equal(builds(dir).length, 1, builds(dir).join(', '));
    assert.ok(lstatSync(join(dir, 'dist')).isSymbolicLink());
    assert.equal(readlinkSync(join(dir, 'dist')), builds(dir)[0]);
    assert.equal(started.filter((s) => /build: up to date/.test(s.output())).length, 2, 'two of them reused it');
    assert.ok(!existsSync(join(dir, '.build.lock')), 'the lock is released');
  } finally {
    await Promise.all(started.map(stop));
  }
});

test('a changed source makes a new build beside the old one; dist swaps to it; nothing changed builds nothing', async () => {
  const dir = projectCopy();
  const first = runBuild(dir);
  assert.equal(first.status, 0, first.output);
  const [old] = builds(dir);
  assert.ok(old && existsSync(join(dir, old, 'main.js')) && existsSync(join(dir, old, '.complete')));
  const again = runBuild(dir);
  assert.equal(again.status, 0, again.output);
  assert.match(again.output, /build: up to date/);
  assert.deepEqual(builds(dir), [old]);

  appendFileSync(join(dir, 'src', 'main.ts'), '\n// a change\n');
  const changed = runBuild(dir);
  assert.equal(changed.status, 0, changed.output);
  const now = builds(dir);
  assert.equal(now.length, 2, 'the old build stays for whoever still runs it');
  const current = readlinkSync(join(dir, 'dist'));
  assert.notEqual(current, old);
  assert.ok(now.includes(current) && existsSync(join(dir, current, '.complete')));
  assert.ok(existsSync(join(dir, old!, 'main.js')), 'the old build is intact');
});

test('a lock left by a build that died is taken over', () => {
  const dir = projectCopy();
  mkdirSync(join(dir, '.build.lock'));
  // A process id that cannot be running.
  appendFileSync(join(dir, '.build.lock', 'pid'), '2147483646');
  const r = runBuild(dir);
  assert.equal(r.status, 0, r.output);
  assert.ok(!existsSync(join(dir, '.build.lock')));
  assert.equal(builds(dir).length, 1);
});
