// The server holds one object shaped like node's nextTick tick objects (src/infra/tick-shape.ts),
// so that a memory-reducing collection cannot leave nextTick's property-definition feedback
// megamorphic (every later nextTick would define its four properties in V8's runtime: about 3 µs
// more per raw card 404). A heap snapshot runs the same kind of collection on demand.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const MODULE = new URL('../../src/infra/tick-shape.ts', import.meta.url).href;

/**
 * Runs `body` in a child node with natives syntax (V8's %-functions) and tsx; returns its stdout.
 * The child writes into a file, not a pipe: V8's %DebugPrint goes through C's buffered stdout,
 * and on a non-blocking pipe a full pipe makes it drop the rest of its output.
 */
function child(body: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tick-shape-'));
  const file = join(dir, 'stdout.txt');
  const fd = openSync(file, 'w');
  try {
    execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', body], {
      stdio: ['ignore', fd, 'inherit'],
      timeout: 120_000,
    });
    return readFileSync(file, 'utf8');
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The state of nextTick's DefineKeyedOwnPropertyInLiteral feedback slots after a heap snapshot. */
function slotsAfterSnapshot(hold: boolean): string[] {
  const out = child(`
    import { getHeapSnapshot } from 'node:v8';
    import { holdTickShape } from ${JSON.stringify(MODULE)};
    if (${hold} && !holdTickShape()) throw new Error('no tick shape held');
    const spin = (n) => new Promise((done) => { let i = 0; const f = () => (++i < n ? process.nextTick(f) : done()); process.nextTick(f); });
    for (let i = 0; i < 50; i++) await spin(1000);
    await new Promise((r) => setTimeout(r, 10));
    getHeapSnapshot().resume();
    await new Promise((r) => setTimeout(r, 10));
    await spin(10);
    %DebugPrint(process.nextTick);
  `);
  return [...out.matchAll(/slot #\d+ DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((m) => m[1]!);
}

test('the held object has the hidden class of a real tick object', () => {
  const out = child(`
    import { createHook } from 'node:async_hooks';
    import { heldTickShape, holdTickShape } from ${JSON.stringify(MODULE)};
    const ok = holdTickShape();
    for (let i = 0; i < 100; i++) process.nextTick(() => {});
    await new Promise((r) => setTimeout(r, 10));
    let real;
    const hook = createHook({ init(id, type, trigger, resource) { if (type === 'TickObject') real ??= resource; } }).enable();
    process.nextTick(() => {});
    hook.disable();
    console.log(JSON.stringify({ ok, real: real !== undefined, same: %HaveSameMap(real, heldTickShape()) }));
  `);
  assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), { ok: true, real: true, same: true });
});

test('a heap snapshot leaves nextTick monomorphic when the shape is held, megamorphic when not', () => {
  const without = slotsAfterSnapshot(false);
  // The control: on this node, without the held object, the collection does clear the maps and
  // the slots go megamorphic (otherwise this test could not see the held object's effect).
  assert.equal(without.length, 4, `nextTick's four property slots: ${without.join(', ')}`);
  assert.ok(without.includes('MEGAMORPHIC'), `without the held shape: ${without.join(', ')}`);
  const held = slotsAfterSnapshot(true);
  assert.deepEqual(held, ['MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC']);
});
