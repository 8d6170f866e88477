// The server runs with V8's allocation-site pretenuring off (`--no-allocation-site-pretenuring`
// in package.json's start script and the image's CMD; docs/adr/0010-no-allocation-site-pretenuring.md). With it
// on, a server now and then (about one start in six, measured) tenured a few of node's HTTP
// allocation sites in its first seconds under load; the dead request objects then allocated in
// the old generation kept every later request's objects alive through the next scavenges, more
// sites were tenured, and the process stayed for its whole life at twice the CPU per request
// (24 µs instead of 11 for a cached /status, every path alike, scavenges 6 ms instead of 0.5).
// This checks that the start flags carry the switch and that this node honours it: the same
// survival-heavy allocations get sites tenured without it and none with it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { startFlags } from '../../bench/start-flags.js';

const FLAG = '--no-allocation-site-pretenuring';

/** Object literals that all survive (kept in an array) across full collections: V8 tenures their sites. */
const WORKLOAD = `
  const collect = require('node:vm').runInNewContext('gc');
  const keep = [];
  function make(i) { return { a: i, b: [i], c: { d: i } }; }
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < 1e6; i++) keep.push(make(i));
    collect();
  }
  process.stdout.write('done ' + keep.length + '\\n');
`;

/** The pretenuring decisions V8 traced while the workload ran under these flags. */
function tenureDecisions(flags: string[]): { done: boolean; tenured: number } {
  const out = execFileSync(process.execPath, [...flags, '--expose-gc', '--trace-pretenuring', '--trace-pretenuring-statistics', '-e', WORKLOAD], {
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { done: out.includes('done 4000000'), tenured: (out.match(/=> tenure\b/g) ?? []).length };
}

test('npm start turns allocation-site pretenuring off', () => {
  assert.ok(startFlags(join(import.meta.dirname, '..', '..', 'package.json')).includes(FLAG));
});

test('without the flag V8 tenures the sites of surviving literals; with the start flags it tenures none', () => {
  // V8's decisions follow the scavenges' timing, which a loaded machine moves (on Node.js 24 a
  // busy run now and then tenures nothing): the control gets three tries to show the workload
  // is one V8 pretenures.
  let control = tenureDecisions([]);
  for (let tries = 1; tries < 3 && control.tenured === 0; tries++) control = tenureDecisions([]);
  assert.ok(control.done);
  assert.ok(control.tenured > 0, 'the control run should tenure at least one allocation site');
  const flagged = tenureDecisions(startFlags(join(import.meta.dirname, '..', '..', 'package.json')));
  assert.ok(flagged.done);
  assert.equal(flagged.tenured, 0);
});
