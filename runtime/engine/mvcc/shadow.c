/* The DRAM shadow table: every heap block's control header in place, its
 * 32-byte hot part at table[(addr - base) >> log2(block)] and the rest at
 * the same index in `cold`, and the bitmap `installed` of the headers in
 * use (the blocks written since the heap was opened).
 *
 * A read tests the block's bit (a word covers 64 blocks, so the bitmap of
 * a whole working set stays in the cache): clear, the master holds the
 * block; set, the header is at a fixed address, with no pointer to follow
 * (the pass's inline check reads both so: docs/engines/mvcc.md, "Inline
 * loads").  Until pass ABI 8 the table held a pointer per block to a
 * 64-byte header from a per-thread allocator: one more dependent miss per
 * block read (bench/README.md, "Control headers in place").  The runtime
 * has no jemalloc (runtime/CMakeLists.txt links none), so the engine's
 * volatile metadata comes from its own allocators, never from the
 * program's malloc: table, cold part and bitmaps are anonymous NORESERVE
 * mappings, and a page of headers takes memory only once a header on it
 * is installed (all zeros until then, a valid header: no lock, no version,
 * no checkpoint copy).  table_used marks the table's
 * pages that hold an installed header, so a walk of them (a close) costs
 * the blocks written, not the heap's size. */
#include <stdint.h>
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
  p = mmap(NULL, mv.nblocks * sizeof *mv.cold, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    amber_fatal("mvcc: cannot reserve the control headers' cold half (%llu blocks, %zu bytes of address space); use a larger "
                "AMBER_BLOCK for new heaps or a smaller heap",
                (unsigned long long)mv.nblocks, (size_t)(mv.nblocks * sizeof *mv.cold));
  mv.cold = p;
  size_t words = (bytes / 4096 + 64) / 64 * sizeof(uint64_t);
  p = mmap(NULL, words, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) amber_fatal("mvcc: cannot reserve the shadow table's page map (%zu bytes)", words);
  mv.table_used = p;
  words = (mv.nblocks + 63) / 64 * sizeof(uint64_t);
  p = mmap(NULL, words, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) amber_fatal("mvcc: cannot reserve the shadow table's block map (%zu bytes)", words);
  mv.installed = p;
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

/* The first header installed on table page pg: its page, and the pages of
 * the cold halves of its blocks (the first and the last block's: a page
 * of table covers less than two of cold), are written before anything
 * reads them.  A first read of an anonymous page maps the shared zero
 * page, and the write that follows (the writer's lock CAS, mv_dirty's
 * CAS) then takes a copy-on-write fault that flushes the TLB on every CPU
 * running the process: thousands of such shootdowns in a kvserver run
 * under redis-benchmark (bench/README.md).  A write first takes a plain
 * fault.  The write changes nothing (another thread may already be using
 * a header of the page: an atomic read-modify-write, relaxed, as it
 * orders nothing; test/run/mvcc_first_touch.c counts the faults). */
static void touch_word(uint64_t *p) {
  /* A compare-exchange of 0 for 0: it changes nothing, and a compiler
   * keeps it (an unused OR of 0, even volatile, LLVM dropped), and on x86
   * the locked instruction is a write access whether or not it succeeds. */
  uint64_t zero = 0;
  __atomic_compare_exchange_n(p, &zero, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
static void touch_page(uint64_t pg) {
  uint64_t lo = pg * PER_PAGE, hi = lo + PER_PAGE - 1 < mv.nblocks ? lo + PER_PAGE - 1 : mv.nblocks - 1;
  touch_word(&mv.table[lo].rts);
  touch_word(&mv.cold[lo].unl_ts);
  touch_word(&mv.cold[hi].unl_ts);
}

/* Invariant: a header stays at its place for as long as the heap is open
 * (the table is unmapped never), so a pointer to one stays valid. */
struct mv_ctl *mv_ctl_get(uint64_t blk) {
  struct mv_ctl *c = &mv.table[blk];
  if (__builtin_expect(mv_installed(blk, __ATOMIC_ACQUIRE), 1)) return c;
  /* The page first (written before any reader can find a bit set on it:
   * touch_page), then the block's bit, before the caller locks the block:
   * a reader that finds the bit clear reads the master, as it did a NULL
   * pointer when the table held pointers; the header's words are all
   * zeros until then. */
  uint64_t pg = blk / PER_PAGE, pbit = 1ull << (pg % 64);
  if (!(__atomic_load_n(&mv.table_used[pg / 64], __ATOMIC_ACQUIRE) & pbit) &&
      !(__atomic_fetch_or(&mv.table_used[pg / 64], pbit, __ATOMIC_ACQ_REL) & pbit))
    touch_page(pg);
  /* Seq_cst: validate's load of the bit pairs with it (txn.c). */
  __atomic_fetch_or(&mv.installed[blk / 64], 1ull << (blk % 64), __ATOMIC_SEQ_CST);
  return c;
}
