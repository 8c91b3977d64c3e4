/* The DRAM shadow table: one pointer per heap block, indexed by
 * (addr - base) >> log2(block), to the block's control header.
 *
 * The runtime has no jemalloc (runtime/CMakeLists.txt links none), so the
 * engine's volatile metadata comes from its own allocators, never from the
 * program's malloc: the table is one anonymous NORESERVE mapping (pages
 * appear as blocks are first written), and control headers are carved by a
 * per-thread bump allocator from 64 KiB anonymous chunks.  Headers are never
 * freed while the heap is open (at most one per block ever written). */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "base/diag.h"
#include "mvcc.h"

#define CHUNK (64u << 10)

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

#define PER_PAGE (4096 / sizeof(struct mv_ctl *))

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

static struct mv_ctl *ctl_new(struct mv_thread *m) {
  if (m->spare) {
    struct mv_ctl *c = m->spare;
    m->spare = NULL;
    return c;
  }
  if (m->slab_left < sizeof(struct mv_ctl)) {
    void *p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) amber_fatal("mvcc: out of memory for block control headers");
    m->slab = p;
    m->slab_left = CHUNK;
  }
  struct mv_ctl *c = (struct mv_ctl *)m->slab;
  m->slab += sizeof *c;
  m->slab_left -= sizeof *c;
  return c;
}

/* Invariant: a published header is never replaced or freed while the heap
 * is open, so a pointer read from the table stays valid. */
struct mv_ctl *mv_ctl_get(struct mv_thread *m, uint64_t blk) {
  struct mv_ctl *c = mv_ctl_of(blk);
  if (__builtin_expect(c != NULL, 1)) return c;
  struct mv_ctl *n = ctl_new(m);
  memset(n, 0, sizeof *n);
  n->blk = blk;
  struct mv_ctl *expect = NULL;
  if (__atomic_compare_exchange_n(&mv.table[blk], &expect, n, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    uint64_t pg = blk / PER_PAGE;
    __atomic_fetch_or(&mv.table_used[pg / 64], 1ull << (pg % 64), __ATOMIC_RELEASE);
    return n;
  }
  m->spare = n; /* another thread installed one first */
  return expect;
}
