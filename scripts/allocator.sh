# glibc's allocator settings of the server (docs/adr/0026-argon2-buffers-in-huge-pages.md), sourced
# by `npm start` before it runs node; the benchmarks read the same. A value already set is kept.
#   MALLOC_ARENA_MAX=2: two arenas for every thread, instead of up to eight per core.
#   MALLOC_MMAP_THRESHOLD_=4194304 and glibc.malloc.hugetlb=1: argon2's 19 MiB buffer is mapped for
#   each computation in transparent huge pages and given back after it, instead of staying in an
#   arena once freed. Only where the kernel grants huge pages on request: in 4 KiB pages, each
#   computation would fault its buffer in again.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
if [ -z "${MALLOC_MMAP_THRESHOLD_:-}" ] && grep -qs -e '\[always\]' -e '\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled; then
  export MALLOC_MMAP_THRESHOLD_=4194304
  export GLIBC_TUNABLES="${GLIBC_TUNABLES:+$GLIBC_TUNABLES:}glibc.malloc.hugetlb=1"
fi
