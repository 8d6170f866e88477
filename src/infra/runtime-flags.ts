// What `npm start` (and the image) sets for the node process, checked at start-up so that an
// operator who runs `node dist/main.js` some other way is told what it misses.
//   MALLOC_ARENA_MAX=2: glibc's per-thread arenas would keep argon2's 19 MiB buffers from the
//     libuv threads resident (README, Benchmarks).

/** One line per setting of `npm start` that this process runs without; empty when none is missing. */
export function missingStartSettings(env: NodeJS.ProcessEnv): string[] {
  const missing: string[] = [];
  if (env.MALLOC_ARENA_MAX === undefined) {
    missing.push('MALLOC_ARENA_MAX is not set (npm start sets 2: argon2 buffers stay resident per thread otherwise)');
  }
  return missing;
}
