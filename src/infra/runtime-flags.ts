// What `npm start` (and the image's CMD) sets for the node process, checked at start-up so that
// an operator who runs `node dist/main.js` some other way is told what it misses.
//   --no-allocation-site-pretenuring: without it a process can fall, in its first seconds under
//     load, into spending twice the CPU per request for its whole life (ADR 10).
//   MALLOC_ARENA_MAX=2: glibc's per-thread arenas would keep argon2's 19 MiB buffers from the
//     libuv threads resident (README, Benchmarks).
export const PRETENURING_FLAG = '--no-allocation-site-pretenuring';

/** One line per setting of `npm start` that this process runs without; empty when none is missing. */
export function missingStartSettings(execArgv: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const missing: string[] = [];
  // A V8 flag node does not accept in NODE_OPTIONS: only the command line can carry it.
  if (!execArgv.includes(PRETENURING_FLAG)) {
    missing.push(`node runs without ${PRETENURING_FLAG} (start it as npm start does: docs/adr/0010-no-allocation-site-pretenuring.md)`);
  }
  if (env.MALLOC_ARENA_MAX === undefined) {
    missing.push('MALLOC_ARENA_MAX is not set (npm start sets 2: argon2 buffers stay resident per thread otherwise)');
  }
  return missing;
}
