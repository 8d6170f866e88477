// The injected clock read as milliseconds: the hot paths compare expiries with it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { millisOf, systemClock } from '../../src/domain/clock.js';

test('the system clock is read as Date.now, with no Date made per read', () => {
  assert.equal(millisOf(systemClock), Date.now);
  const before = Date.now();
  const at = systemClock().getTime();
  assert.ok(at >= before && at <= Date.now());
});

test('an injected clock is followed as it moves, not frozen at the first read', () => {
  let now = Date.UTC(2026, 0, 1);
  const nowMs = millisOf(() => new Date(now));
  assert.equal(nowMs(), Date.UTC(2026, 0, 1));
  now += 30_000;
  assert.equal(nowMs(), Date.UTC(2026, 0, 1) + 30_000);
});
