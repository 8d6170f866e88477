// The commit-message rule of `npm run lint` (scripts/check-commits.mjs): a subject of at most 72
// characters, in the imperative, no final period, a blank line before the body.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
// @ts-expect-error: a plain .mjs script without type declarations
import { problemsOf } from '../../scripts/check-commits.mjs';

const check = problemsOf as (message: string) => string[];

test('a short imperative subject with a body after a blank line passes', () => {
  assert.deepEqual(check('Build into fresh dirs and swap dist\n\nWhy it matters, at length.\n'), []);
  assert.deepEqual(check('Console: ask to confirm it is you, then retry\n'), []);
  assert.deepEqual(check(`${'a'.repeat(72)}\n`), []);
});

test('long, past-tense, third-person, dotted, empty or body-glued subjects are refused', () => {
  assert.match(check(`${'a'.repeat(73)}\n`).join(), /73 characters \(at most 72\)/);
  assert.match(check('Added the reauth dialog\n').join(), /imperative \("Added"\)/);
  assert.match(check('Console: fixes the dialog\n').join(), /imperative \("fixes"\)/);
  assert.match(check('Add the dialog.\n').join(), /period/);
  assert.match(check('\n\nbody only\n').join(), /empty/);
  assert.match(check('Add the dialog\nand more on the next line\n').join(), /blank line/);
  // Comment lines of the editor's template are not the message.
  assert.deepEqual(check('# Please enter the commit message\nAdd the dialog\n'), []);
});

test('the hook form checks a message file and fails with the reason', () => {
  const dir = mkdtempSync(join(tmpdir(), 'commit-msg-'));
  const good = join(dir, 'good');
  const bad = join(dir, 'bad');
  writeFileSync(good, 'Add a check\n');
  writeFileSync(bad, `Updated ${'everything '.repeat(10)}\n`);
  const run = (file: string) => spawnSync(process.execPath, ['scripts/check-commits.mjs', '--message-file', file], { encoding: 'utf8' });
  assert.equal(run(good).status, 0);
  const refused = run(bad);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /imperative/);
  assert.match(refused.stderr, /characters/);
});

test('every commit since the rule began passes (what npm run lint checks)', () => {
  const r = spawnSync(process.execPath, ['scripts/check-commits.mjs'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
});
