// The start-up advice when node runs without what `npm start` sets (src/infra/runtime-flags.ts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFlags } from '../../bench/start-flags.js';
import { missingStartSettings, PRETENURING_FLAG } from '../../src/infra/runtime-flags.js';

test('as npm start runs it: nothing to say', () => {
  const flags = startFlags(join(import.meta.dirname, '..', '..', 'package.json'));
  assert.deepEqual(missingStartSettings(flags, { MALLOC_ARENA_MAX: '2' }), []);
});

test('plain `node dist/main.js`: both settings named', () => {
  const advice = missingStartSettings([], {});
  assert.equal(advice.length, 2);
  assert.match(advice[0]!, new RegExp(PRETENURING_FLAG));
  assert.match(advice[1]!, /MALLOC_ARENA_MAX/);
});

test('each setting is checked on its own', () => {
  assert.deepEqual(
    missingStartSettings([PRETENURING_FLAG], {}).map((a) => a.split(' ')[0]),
    ['MALLOC_ARENA_MAX'],
  );
  assert.equal(missingStartSettings(['--enable-source-maps'], { MALLOC_ARENA_MAX: '4' }).length, 1);
});
