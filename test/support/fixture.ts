// Per-file fixtures: something started once before the tests of a file (or of a describe block)
// and stopped after them, through node:test's before/after hooks. Fixtures start one after the
// other in the order they are declared (Node 20 runs file-level before hooks as soon as they are
// registered, without waiting for the previous one), and stop newest first, so a server is closed
// before the SMTP server or fake provider it was started against. Set-up that needs a fixture
// (an account on the server) is a fixture itself, so that it waits its turn.
import { after, before } from 'node:test';

export interface FixtureOptions {
  /** The skip reason of every test that uses the fixture: when set, nothing is started. */
  skip?: string | boolean;
}

/** Fixtures started and not yet stopped, oldest first. */
const running: (() => Promise<void>)[] = [];
/** The start of the fixture declared last: the next one waits for it. */
let lastStart: Promise<unknown> = Promise.resolve();

/** Registers the hooks and returns the started value's getter (usable inside tests and hooks). */
export function useFixture<T>(start: () => Promise<T>, stop: (value: T) => Promise<void>, opts: FixtureOptions = {}): () => T {
  let value: { current: T } | null = null;
  let stopThis: (() => Promise<void>) | null = null;
  if (!opts.skip) {
    before(async () => {
      const previous = lastStart;
      const starting = previous.then(start, start);
      lastStart = starting;
      const current = await starting;
      value = { current };
      stopThis = () => stop(current);
      running.push(stopThis);
    });
    after(async () => {
      // Everything started after this fixture (it may depend on it) stops first.
      const at = stopThis ? running.indexOf(stopThis) : -1;
      if (at === -1) return;
      const errors: unknown[] = [];
      for (const stopOne of running.splice(at).reverse()) await stopOne().catch((err: unknown) => errors.push(err));
      if (errors.length > 0) throw errors[0];
    });
  }
  return () => {
    if (!value) throw new Error('fixture used before its before() hook ran, or in a skipped test');
    return value.current;
  };
}

/**
 * A fixture's value as an object that can be handed out before the fixture has started (at the
 * top of a file): every property is read from the started value when it is used, inside tests
 * and hooks, and its methods are bound to it. (The value must be an object.)
 */
export function lazyFixture<T extends object>(get: () => T): T {
  return new Proxy({} as T, {
    get(_target, key) {
      const value = get();
      const property: unknown = Reflect.get(value, key);
      return typeof property === 'function' ? (property as (...args: unknown[]) => unknown).bind(value) : property;
    },
    has: (_target, key) => key in get(),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor(_target, key) {
      const descriptor = Reflect.getOwnPropertyDescriptor(get(), key);
      return descriptor && { ...descriptor, configurable: true };
    },
  });
}
