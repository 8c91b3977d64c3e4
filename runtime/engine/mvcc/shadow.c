/* The DRAM shadow table: every heap block's control header, one cache line
 * each, at table[(addr - base) >> log2(block)].
 *
 * The runtime has no jemalloc (runtime/CMakeLists.txt links none), so the
 * engine's volatile metadata comes from its own allocators, never from the
 * program's malloc: the table is one anonymous NORESERVE mapping.  A page
 * of it is the kernel's zero page until a header on it is first written,
 * and an all-zero header is a valid one (no lock, no version, no checkpoint
 * copy: the master is the block's data), so a read finds the header of any
 * block at a fixed address, with no pointer to follow (the pass's inline
 * check reads it so: docs/engines/mvcc.md, "Inline loads").  `installed`
 * marks the headers of blocks written since the heap was opened, and
 * table_used the pages that hold one, so a walk of them (a close) costs
 * the blocks written, not the heap's size. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "base/diag.h"
#include "mvcc.h"

#define PER_PAGE (4096 / sizeof(struct mv_ctl))

void mv_shadow_open(void) {
  size_t bytes = mv.nblocks * sizeof *mv.table;
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    amber_fatal("mvcc: cannot reserve the shadow table (%llu blocks, %zu bytes of address space); use a larger AMBER_BLOCK for new "
                "heaps or a smaller heap",
                (unsigned long long)mv.nblocks, bytes);
  mv.table = p;
  size_t words = (bytes / 4096 + 64) / 64 * sizeof(uint64_t);
  p = mmap(NULL, words, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) amber_fatal("mvcc: cannot reserve the shadow table's page map (%zu bytes)", words);
  mv.table_used = p;
}

void mv_shadow_each(void (*fn)(struct mv_ctl *c, void *ctx), void *ctx) {
  uint64_t pages = (mv.nblocks + PER_PAGE - 1) / PER_PAGE;
  for (uint64_t w = 0; w * 64 < pages; w++) {
    uint64_t bits = __atomic_load_n(&mv.table_used[w], __ATOMIC_ACQUIRE);
    while (bits) {
      uint64_t pg = w * 64 + (uint64_t)__builtin_ctzll(bits);
      bits &= bits - 1;
      for (uint64_t b = pg * PER_PAGE; b < (pg + 1) * PER_PAGE && b < mv.nblocks; b++) {
        struct mv_ctl *c = mv_ctl_of(b);
        if (c) fn(c, ctx);
      }
    }
  }
}

/* Invariant: a header stays at its place for as long as the heap is open
 * (the table is unmapped never), so a pointer to one stays valid. */
struct mv_ctl *mv_ctl_get(struct mv_thread *m, uint64_t blk) {
  (void)m;
  struct mv_ctl *c = &mv.table[blk];
  if (__builtin_expect(__atomic_load_n(&c->installed, __ATOMIC_ACQUIRE) != 0, 1)) return c;
  uint64_t expect = 0;
  if (__atomic_compare_exchange_n(&c->installed, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    uint64_t pg = blk / PER_PAGE;
    __atomic_fetch_or(&mv.table_used[pg / 64], 1ull << (pg % 64), __ATOMIC_RELEASE);
  }
  return c;
}
