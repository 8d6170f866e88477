// Keeps the hidden-class chain of node's `process.nextTick` tick objects alive for the life of
// the process, so that V8's memory reducer cannot turn every later `nextTick` into two runtime
// calls.
//
// node builds each tick object as `{ [async_id_symbol]: id, [trigger_async_id_symbol]: id,
// callback, args }`. Because the first key is computed, all four properties are defined through
// DefineKeyedOwnPropertyInLiteral feedback slots, which hold the maps they saw weakly. When a
// memory-reducing collection runs (the memory reducer after an idle spell, a heap snapshot), V8
// skips its usual map retention; if no tick object is alive at that moment, the maps of the
// chain die and the slots are left "cleared". V8's runtime treats a cleared slot meeting a new
// map as a second map and makes the slot megamorphic for good; from then on every `nextTick`
// (node's HTTP code calls it several times per request) defines its properties in the runtime
// (`Runtime_DefineKeyedOwnPropertyInLiteral`, `MigrateToMap`: 13% of the CPU of a card 404 in
// `perf`, some 3 µs per request). One object of the same shape, held here, keeps the maps alive.
//
// The object must take exactly the path of node's own: the same keys in the same order and the
// same field representations (the ids are read from a Float64Array, so their fields hold doubles;
// a small integer here would start a chain that the first real tick object deprecates when this
// runs before any tick object exists). test/infra/tick-shape.test.ts checks the hidden class and
// the effect on the node that runs the tests; it cannot check the representation rule, because
// under its loader tick objects always exist before this module runs.
import { AsyncResource } from 'node:async_hooks';

let held: object | undefined;

const noop = (): void => {};

/**
 * Holds one tick-shaped object for the life of the process. Returns false, doing nothing, when
 * this node's async resources do not carry the symbols tick objects are keyed by.
 */
export function holdTickShape(): boolean {
  if (held !== undefined) return true;
  // AsyncResource instances are keyed by the same two symbols as tick objects (the only public
  // objects that carry both).
  const symbols = Object.getOwnPropertySymbols(new AsyncResource('TickShape'));
  const asyncId = symbols.find((s) => s.description === 'async_id_symbol');
  const triggerAsyncId = symbols.find((s) => s.description === 'trigger_async_id_symbol');
  if (asyncId === undefined || triggerAsyncId === undefined) return false;
  held = { [asyncId]: 0.5, [triggerAsyncId]: 0.5, callback: noop, args: undefined };
  return true;
}

/** The held object (tests compare its hidden class with a real tick object's). */
export function heldTickShape(): object | undefined {
  return held;
}
