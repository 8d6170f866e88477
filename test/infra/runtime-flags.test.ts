// The start-up advice when node runs without what `npm start` sets (src/infra/runtime-flags.ts,
// scripts/allocator.sh).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { missingStartSettings, transparentHugePages } from '../../src/infra/runtime-flags.js';

const HUGE = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '4194304', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' };

test('as npm start runs it: nothing to say, whatever the kernel grants', () => {
  assert.deepEqual(missingStartSettings(HUGE, 'madvise'), []);
  assert.deepEqual(missingStartSettings(HUGE, 'always'), []);
  assert.deepEqual(missingStartSettings({ ...HUGE, GLIBC_TUNABLES: 'glibc.malloc.tcache_count=0:glibc.malloc.hugetlb=1' }, 'madvise'), []);
  assert.deepEqual(missingStartSettings({ MALLOC_ARENA_MAX: '4' }, 'never'), []);
  assert.deepEqual(missingStartSettings({ MALLOC_ARENA_MAX: '2' }, null), []);
});

test('plain `node dist/main.js`: MALLOC_ARENA_MAX named, and the mmap threshold where huge pages are granted', () => {
  assert.deepEqual(missingStartSettings({}, 'never').map((a) => a.split(' ')[0]), ['MALLOC_ARENA_MAX']);
  assert.deepEqual(missingStartSettings({}, 'madvise').map((a) => a.split(' ')[0]), ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_']);
});

test('a threshold that would fault every argon2 buffer in small pages is named', () => {
  const never = missingStartSettings(HUGE, 'never');
  assert.equal(never.length, 1);
  assert.match(never[0]!, /grants no transparent huge pages \(never\).*unset it/);
  const noTunable = missingStartSettings({ MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '4194304' }, 'madvise');
  assert.match(noTunable[0]!, /without GLIBC_TUNABLES=glibc\.malloc\.hugetlb=1/);
  // A threshold above the buffer leaves it to the arenas: nothing faults, nothing to say.
  assert.deepEqual(missingStartSettings({ MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '33554432' }, 'never'), []);
});

test("the kernel's mode is read from its bracket; none where the file is missing", () => {
  const dir = mkdtempSync(join(tmpdir(), 'thp-'));
  writeFileSync(join(dir, 'enabled'), 'always [madvise] never\n');
  assert.equal(transparentHugePages(join(dir, 'enabled')), 'madvise');
  assert.equal(transparentHugePages(join(dir, 'missing')), null);
});

test('npm start sets the three where huge pages are granted, keeps what is set, and sets only the arenas elsewhere', () => {
  const run = (env: Record<string, string>) =>
    Object.fromEntries(
      execFileSync('sh', ['-c', '. ./scripts/allocator.sh && env'], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' })
        .split('\n')
        .filter((l) => /^(MALLOC_|GLIBC_TUNABLES=)/.test(l))
        .map((l) => l.split(/=(.*)/s).slice(0, 2)),
    );
  const mode = transparentHugePages();
  const here = run({});
  if (mode === 'always' || mode === 'madvise') assert.deepEqual(here, HUGE);
  else assert.deepEqual(here, { MALLOC_ARENA_MAX: '2' });
  assert.equal(run({ MALLOC_ARENA_MAX: '4' }).MALLOC_ARENA_MAX, '4');
  assert.equal(run({ MALLOC_MMAP_THRESHOLD_: '33554432' }).MALLOC_MMAP_THRESHOLD_, '33554432');
  assert.equal(run({ MALLOC_MMAP_THRESHOLD_: '33554432' }).GLIBC_TUNABLES, undefined);
  // The image sets them statically (Dockerfile); the server's check then speaks for the kernel.
  assert.deepEqual(missingStartSettings(here, mode), []);
});
