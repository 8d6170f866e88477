// A benchmark never changes the machine's settings: `npm run bench:scale` reads whether huge pages
// are free for its cluster (bench/private-postgres.ts), says what is missing and how to provide
// it, and runs without them or stops; nothing under bench/ or scripts/ writes a kernel setting.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkHugePages, hugePagesMode, hugePagesSetting } from '../../bench/private-postgres.js';

const ROOT = join(import.meta.dirname, '..', '..');

const meminfo = (total: number, free: number, pageKb = 2048) =>
  `MemTotal:       16000000 kB\nHugePages_Total:    ${total}\nHugePages_Free:     ${free}\nHugePages_Rsvd:        0\nHugepagesize:       ${pageKb} kB\n`;

test('enough free huge pages: the cluster runs on them, with nothing to say', () => {
  // 1 GB of shared buffers, 4% for their descriptors and 256 MB for the rest: 661 pages of 2 MB.
  const check = checkHugePages('1GB', meminfo(700, 700));
  assert.equal(check.need, 661);
  assert.equal(check.available, true);
  assert.deepEqual(hugePagesSetting('auto', check), { setting: 'on', warning: null });
  assert.deepEqual(hugePagesSetting('require', check), { setting: 'on', warning: null });
  assert.deepEqual(hugePagesSetting('off', check), { setting: 'off', warning: null });
});

test('too few free huge pages: the run says what is missing and how to provide it, then runs without them', () => {
  const check = checkHugePages('1GB', meminfo(100, 60));
  assert.equal(check.available, false);
  // 60 free of 661 needed: the total must grow by 601, from 100 to 701.
  assert.match(check.advice, /60 free huge pages of 2048 kB, 661 needed for shared_buffers=1GB/);
  assert.match(check.advice, /as root before the run: sysctl -w vm\.nr_hugepages=701 \(and back to 100 afterwards\)/);
  const { setting, warning } = hugePagesSetting('auto', check);
  assert.equal(setting, 'off');
  assert.match(warning!, /runs without huge pages: 60 free/);
  assert.match(warning!, /not comparable with runs on huge pages \(bench\/README\.md\)/);
  assert.match(warning!, /SCALE_HUGE_PAGES=require stops instead/);
});

test('SCALE_HUGE_PAGES=require stops the run with the advice; a kernel without huge pages is named', () => {
  assert.throws(() => hugePagesSetting('require', checkHugePages('10GB', meminfo(0, 0))), /SCALE_HUGE_PAGES=require: 0 free huge pages of 2048 kB, 5453 needed.*sysctl -w vm\.nr_hugepages=5453/);
  const none = checkHugePages('10GB', 'MemTotal: 16000000 kB\n');
  assert.equal(none.available, false);
  assert.match(none.advice, /the kernel offers no huge pages/);
  assert.throws(() => hugePagesSetting('require', none), /SCALE_HUGE_PAGES=require: the kernel offers no huge pages/);
  assert.equal(hugePagesSetting('auto', none).setting, 'off');
});

test('SCALE_HUGE_PAGES takes auto (the default), require or off, and refuses anything else', () => {
  assert.equal(hugePagesMode(undefined), 'auto');
  assert.equal(hugePagesMode('require'), 'require');
  assert.equal(hugePagesMode('off'), 'off');
  assert.throws(() => hugePagesMode('yes'), /SCALE_HUGE_PAGES must be auto, require or off \(got "yes"\)/);
});

test('nothing under bench/ or scripts/ writes a kernel setting or runs sysctl', () => {
  const files = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((d) =>
      d.isDirectory() ? files(join(dir, d.name)) : /\.(ts|mjs|js|sh)$/.test(d.name) ? [join(dir, d.name)] : [],
    );
  const writes = [
    // a file write whose path starts under /proc/sys or /sys
    /(writeFileSync|appendFileSync|writeFile|appendFile|createWriteStream|openSync)\(\s*['"`]\/(proc\/sys|sys)\//,
    // a variable holding such a path (the old reservation kept it in `path`)
    /=\s*['"`]\/proc\/sys\//,
    // sysctl, run as a program
    /(spawn|spawnSync|exec|execSync|execFile|execFileSync)\(\s*['"`](\/usr\/sbin\/|\/sbin\/)?sysctl['"`\s]/,
  ];
  const offenders = [...files('bench'), ...files('scripts')].filter((f) => writes.some((w) => w.test(readFileSync(join(ROOT, f), 'utf8'))));
  assert.deepEqual(offenders, []);
});
