// The start-up advice when node runs without what `npm start` sets (src/infra/runtime-flags.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { missingStartSettings } from '../../src/infra/runtime-flags.js';

test('as npm start runs it: nothing to say', () => {
  assert.deepEqual(missingStartSettings({ MALLOC_ARENA_MAX: '2' }), []);
  assert.deepEqual(missingStartSettings({ MALLOC_ARENA_MAX: '4' }), []);
});

test('plain `node dist/main.js`: MALLOC_ARENA_MAX named', () => {
  const advice = missingStartSettings({});
  assert.equal(advice.length, 1);
  assert.match(advice[0]!, /MALLOC_ARENA_MAX/);
});
