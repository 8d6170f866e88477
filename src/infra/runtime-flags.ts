// What `npm start` (and the image) sets for the node process, checked at start-up so that an
// operator who runs `node dist/main.js` some other way is told what it misses
// (scripts/allocator.sh; docs/adr/0026-argon2-buffers-in-huge-pages.md):
//   MALLOC_ARENA_MAX=2: glibc's per-thread arenas would keep argon2's 19 MiB buffers from the
//     libuv threads resident.
//   MALLOC_MMAP_THRESHOLD_=4194304 with glibc.malloc.hugetlb=1: each argon2 buffer is mapped in
//     transparent huge pages and given back after its computation; where the kernel grants no
//     huge pages, the same threshold would fault each buffer in 4 KiB pages, at every sign-in.
import { readFileSync } from 'node:fs';

/** The kernel's transparent huge page mode (`always`, `madvise`, `never`), or null where it does not say. */
export function transparentHugePages(path = '/sys/kernel/mm/transparent_hugepage/enabled'): string | null {
  try {
    return /\[(\w+)\]/.exec(readFileSync(path, 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}

/** One line per setting of `npm start` that this process runs without (or against); empty when none. */
export function missingStartSettings(env: NodeJS.ProcessEnv, hugePages: string | null = transparentHugePages()): string[] {
  const missing: string[] = [];
  if (env.MALLOC_ARENA_MAX === undefined) {
    missing.push('MALLOC_ARENA_MAX is not set (npm start sets 2: argon2 buffers stay resident per thread otherwise)');
  }
  const granted = hugePages === 'always' || hugePages === 'madvise';
  const threshold = Number(env.MALLOC_MMAP_THRESHOLD_);
  const mapsArgon2 = env.MALLOC_MMAP_THRESHOLD_ !== undefined && threshold < 19 * 1024 * 1024;
  const hugetlb = /(^|:)glibc\.malloc\.hugetlb=1(:|$)/.test(env.GLIBC_TUNABLES ?? '');
  if (granted && env.MALLOC_MMAP_THRESHOLD_ === undefined) {
    missing.push('MALLOC_MMAP_THRESHOLD_ is not set (npm start sets 4194304 with GLIBC_TUNABLES=glibc.malloc.hugetlb=1: argon2 buffers stay resident once freed otherwise)');
  } else if (mapsArgon2 && !(granted && hugetlb)) {
    missing.push(
      granted
        ? 'MALLOC_MMAP_THRESHOLD_ is set without GLIBC_TUNABLES=glibc.malloc.hugetlb=1: every argon2 computation faults its 19 MiB buffer in 4 KiB pages'
        : `MALLOC_MMAP_THRESHOLD_ is set but the kernel grants no transparent huge pages (${hugePages ?? 'unknown'}): every argon2 computation faults its 19 MiB buffer in 4 KiB pages; unset it, or enable them (madvise)`,
    );
  }
  return missing;
}
