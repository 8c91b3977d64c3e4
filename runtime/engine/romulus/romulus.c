/* Romulus (RomulusLog): twin copies of the data area and a volatile log of
 * modified cache lines.  docs/engines/romulus.md states the invariants and
 * the recovery argument; the comments here point at them.
 *
 *   main  = the data area at the canonical base (the program's pointers)
 *   back  = the engine area, a byte-for-byte twin of main when IDLE
 *   state = status->engine_state: IDLE, MUTATING or COPYING
 *
 * Invariant: whenever state is IDLE or MUTATING, back holds a consistent
 * image (the state after the last committed transaction); whenever state is
 * COPYING, main does.  Recovery copies the consistent twin over the other.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tx/alloc.h"
#include "base/diag.h"
#include "tx/engine.h"
#include "heap/heap.h"
#include "pm/pm.h"
#include "tx/tx.h"
#include "base/wait.h"

#define ROM_IDLE 0x49444c45ull /* "IDLE" */
#define ROM_MUT 0x4d555441ull  /* "MUTA" */
#define ROM_CPY 0x434f5059ull  /* "COPY" */

static struct amber_heap *heap;
static uint64_t meta_end; /* data offsets below this are allocator metadata */

/* ---- a writer-preferring spinning reader-writer lock ----
 * One writer flag and a reader indicator per thread (C-RW-WP, as
 * RomulusLog's): a reader announces itself in a cache line of its own, so
 * the read-only regions of different threads write no line in common, and
 * leaving costs a plain store.  Threads whose state number is past the
 * slots share one counter.
 *
 * Why these orders (docs/engines/romulus.md, "The lock"):
 *  - A reader stores its slot, then loads the writer flag; a writer sets
 *    the flag, then loads every slot.  Store then load, on both sides: all
 *    four are sequentially consistent (Dekker), so one of the two sees the
 *    other: never a reader and a writer both inside.  That one full fence
 *    (the slot store is an xchg on x86) is the whole price of a read lock.
 *  - The reader's flag load also acquires: it reads the 0 of the previous
 *    writer's release store (write_unlock), so that writer's transaction
 *    happens before the reader's reads.
 *  - Leaving, a reader stores 0 with release: its reads happen before a
 *    writer that loads the 0 (acquire, in the seq_cst load) writes.
 *  - nslots (how many slots a writer scans) only grows, by a sequentially
 *    consistent RMW that a thread makes before its first slot store: a
 *    writer whose seq_cst load of nslots misses it set its flag before
 *    that RMW in the single total order, hence before the reader's flag
 *    load, which then sees the flag and backs off. */
#define ROM_SLOTS 256
static struct {
  _Alignas(64) uint32_t writer;
  _Alignas(64) uint32_t readers; /* the shared counter of threads past the slots */
  _Alignas(64) uint32_t nslots;  /* slots in use: highest state number + 1, at most ROM_SLOTS */
} rw;
static struct {
  _Alignas(64) uint32_t in;
} slot[ROM_SLOTS];

static int closed(void);

/* A waiter for the lock: the writer may be a stray batch whose owner is
 * busy elsewhere; ask it to commit (tx/batch.c) each time it yields.  A
 * transaction that waits for the flag of rom_close (held for good) is
 * turned away: it never runs (tx/engine.h, close). */
static inline void cpu_relax(unsigned *spins) {
  if (++*spins < 256) __builtin_ia32_pause();
  else {
    amber_tx_batch_please();
    sched_yield();
    *spins = 0;
  }
}
static inline void wait_writer(unsigned *spins) {
  if (__builtin_expect(closed(), 0)) amber_heap_wait_closed();
  cpu_relax(spins);
}

__attribute__((noinline)) static void raise_nslots(uint32_t n) {
  uint32_t cur = __atomic_load_n(&rw.nslots, __ATOMIC_SEQ_CST);
  while (cur < n && !__atomic_compare_exchange_n(&rw.nslots, &cur, n, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
}

/* Announces t as a reader; nonzero when no writer has the flag (then t
 * holds the read lock; else it must read_unlock and wait). */
static inline int reader_in(const struct amber_thread *t) {
  uint32_t i = t->index;
  if (__builtin_expect(i < ROM_SLOTS, 1)) {
    if (__builtin_expect(i >= __atomic_load_n(&rw.nslots, __ATOMIC_RELAXED), 0)) raise_nslots(i + 1);
    __atomic_store_n(&slot[i].in, 1, __ATOMIC_SEQ_CST);
  } else {
    __atomic_fetch_add(&rw.readers, 1, __ATOMIC_SEQ_CST);
  }
  return !__atomic_load_n(&rw.writer, __ATOMIC_SEQ_CST);
}
static inline void read_unlock(const struct amber_thread *t) {
  uint32_t i = t->index;
  if (__builtin_expect(i < ROM_SLOTS, 1)) __atomic_store_n(&slot[i].in, 0, __ATOMIC_RELEASE);
  else __atomic_fetch_sub(&rw.readers, 1, __ATOMIC_RELEASE);
}

/* A writer had the flag: t waits for it, then announces itself again.
 * announced: t's announcement is up (reader_in saw the flag after it). */
__attribute__((noinline)) static void read_lock_wait(const struct amber_thread *t, int announced) {
  unsigned spins = 0;
  if (announced) read_unlock(t);
  for (;;) {
    while (__atomic_load_n(&rw.writer, __ATOMIC_ACQUIRE)) wait_writer(&spins);
    if (reader_in(t)) return;
    read_unlock(t);
  }
}

/* The uncontended case inline, the waits out of line: a read-only region's
 * begin saves no registers for them (bench/region_cost). */
static inline void read_lock(const struct amber_thread *t) {
  if (__builtin_expect(__atomic_load_n(&rw.writer, __ATOMIC_ACQUIRE) != 0, 0)) read_lock_wait(t, 0);
  else if (__builtin_expect(!reader_in(t), 0)) read_lock_wait(t, 1);
}

/* Readers inside now (a writer's view: seq_cst loads). */
static uint32_t readers_in(void) {
  uint32_t n = __atomic_load_n(&rw.readers, __ATOMIC_SEQ_CST);
  uint32_t k = __atomic_load_n(&rw.nslots, __ATOMIC_SEQ_CST);
  for (uint32_t i = 0; i < k; i++) n += __atomic_load_n(&slot[i].in, __ATOMIC_SEQ_CST);
  return n;
}

/* noinline: its spin loops made rom_begin save six registers on every
 * reader's begin too (a read-only region's boundary: bench/region_cost). */
__attribute__((noinline)) static void write_lock(void) {
  unsigned spins = 0;
  uint32_t z = 0;
  while (!__atomic_compare_exchange_n(&rw.writer, &z, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    z = 0;
    wait_writer(&spins);
  }
  /* The flag is ours: new readers back off; wait for those inside. */
  while (__atomic_load_n(&rw.readers, __ATOMIC_SEQ_CST)) cpu_relax(&spins);
  uint32_t k = __atomic_load_n(&rw.nslots, __ATOMIC_SEQ_CST);
  for (uint32_t i = 0; i < k; i++)
    while (__atomic_load_n(&slot[i].in, __ATOMIC_SEQ_CST)) cpu_relax(&spins);
}
static void write_unlock(void) { __atomic_store_n(&rw.writer, 0, __ATOMIC_RELEASE); }

/* ---- loads outside transactions: which twin holds the committed state ----
 * Invariant: while twin_seq is odd, a writer may be storing to main and back
 * holds the last committed state (I1); while it is even, nothing stores to
 * main and main holds it (back may be being copied to).  Only the writer
 * changes it, holding the write lock: to odd before its first store to main,
 * to even after its commit point (fence 3), before it copies to back.  A
 * load outside transactions reads the twin the sequence names and keeps the
 * bytes only if the sequence did not change meanwhile (a seqlock): it never
 * waits for the writer, and never returns a store that has not committed
 * nor bytes torn by the copy.  docs/engines/romulus.md, "Loads outside
 * regions". */
static struct {
  _Alignas(64) uint64_t seq;
  int closed; /* rom_close holds the write lock for good */
} twin;

/* Seqlock attempts before a load waits for the running writer instead:
 * each failed attempt saw a writer start or commit during the copy, so only
 * a load longer than a writer's phases (a large libc read under back-to-back
 * writers) gets here. */
#define TWIN_TRIES 8

static void readers_to_back(void) {
  uint64_t s = __atomic_load_n(&twin.seq, __ATOMIC_RELAXED);
  if (s & 1) return;
  __atomic_store_n(&twin.seq, s + 1, __ATOMIC_RELAXED);
  /* Readers see the new sequence before any store to main that follows:
   * the seqlock writer's release fence (Boehm, "Can seqlocks get along
   * with programming language memory models?", 2012).  A reader
   * (read_twin) whose copy reads a store to main made after this fence
   * has an acquire fence after the copy: the two fences synchronize, so
   * its second load of the sequence sees this odd value (or later), not
   * the even one it began with, and it discards the copy.  No store-load
   * order is needed, so no seq_cst fence: that was an mfence (113-146 ns
   * on this project's AMD VM) in every update transaction. */
  __atomic_thread_fence(__ATOMIC_RELEASE);
}

static void readers_to_main(void) {
  uint64_t s = __atomic_load_n(&twin.seq, __ATOMIC_RELAXED);
  if (!(s & 1)) return;
  /* Release: main's committed bytes are visible to a reader that sees the
   * even sequence; the fence: before any store to back that follows (the
   * seqlock writer's release fence, as in readers_to_back: a reader whose
   * copy of back reads such a store sees the new sequence at its check). */
  __atomic_store_n(&twin.seq, s + 1, __ATOMIC_RELEASE);
  __atomic_thread_fence(__ATOMIC_RELEASE);
}

static int closed(void) { return __atomic_load_n(&twin.closed, __ATOMIC_ACQUIRE); }

/* read_lock, unless the heap is closed first (its writer lock stays held). */
static int read_lock_open(const struct amber_thread *t) {
  unsigned spins = 0;
  for (;;) {
    while (__atomic_load_n(&rw.writer, __ATOMIC_ACQUIRE)) {
      if (closed()) return 0;
      cpu_relax(&spins);
    }
    if (reader_in(t)) return 1;
    read_unlock(t);
  }
}

/* The pass's loads are 1, 2, 4 or 8 bytes: copied inline, not by a call. */
static inline void copy_bytes(void *dst, const char *src, size_t n) {
  switch (n) {
  case 8: memcpy(dst, src, 8); break;
  case 4: memcpy(dst, src, 4); break;
  case 2: memcpy(dst, src, 2); break;
  case 1: memcpy(dst, src, 1); break;
  default: memcpy(dst, src, n);
  }
}

/* One seqlock attempt: 1 when the bytes copied are committed ones. */
static inline int read_twin(const char *addr, void *dst, size_t n, struct amber_heap *h) {
  uint64_t s = __atomic_load_n(&twin.seq, __ATOMIC_ACQUIRE);
  copy_bytes(dst, (s & 1 ? h->engine_area - h->data + addr : addr), n);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  return __atomic_load_n(&twin.seq, __ATOMIC_RELAXED) == s;
}

__attribute__((noinline)) static void read_committed_retry(const struct amber_thread *t, const char *addr, void *dst,
                                                           size_t n, struct amber_heap *h) {
  for (unsigned tries = 1;; tries++) {
    /* Holding the read lock, no writer runs: main is committed. */
    if (tries >= TWIN_TRIES && read_lock_open(t)) {
      memcpy(dst, addr, n);
      read_unlock(t);
      return;
    }
    if (read_twin(addr, dst, n, h)) return;
  }
}

static inline void read_committed(const struct amber_thread *t, const char *addr, void *dst, size_t n,
                                  struct amber_heap *h) {
  if (__builtin_expect(!read_twin(addr, dst, n, h), 0)) read_committed_retry(t, addr, dst, n, h);
}

/* ---- per-thread log of modified lines (data offsets, line aligned) ---- */
struct rom_log {
  uint64_t *lines; /* in first-write order */
  size_t n, cap;
  uint64_t *set;   /* open addressing; entry = offset + 1, 0 = empty */
  size_t setcap;
  uint64_t last;   /* the line add_line logged last, + 1 (0: none): sequential stores skip the set */
  int mutating;    /* state MUTATING was made durable by this transaction */
  int unlogged;    /* code outside amber may have written main anywhere */
};

static struct rom_log *log_of(struct amber_thread *t) {
  if (!t->engine_data) {
    struct rom_log *l = calloc(1, sizeof *l);
    if (!l) amber_fatal("out of memory for the romulus log");
    t->engine_data = l;
  }
  return t->engine_data;
}

static void set_grow(struct rom_log *l) {
  size_t cap = l->setcap ? l->setcap * 2 : 1024;
  uint64_t *s = calloc(cap, sizeof *s);
  if (!s) amber_fatal("out of memory for the romulus log");
  for (size_t i = 0; i < l->n; i++) {
    size_t h = (size_t)(l->lines[i] >> 6) * 0x9E3779B97F4A7C15ull >> 20;
    for (;; h++) {
      h &= cap - 1;
      if (!s[h]) {
        s[h] = l->lines[i] + 1;
        break;
      }
    }
  }
  free(l->set);
  l->set = s;
  l->setcap = cap;
}

static void add_line(struct rom_log *l, uint64_t off) {
  if (2 * (l->n + 1) > l->setcap) set_grow(l);
  size_t h = (size_t)(off >> 6) * 0x9E3779B97F4A7C15ull >> 20;
  for (;; h++) {
    h &= l->setcap - 1;
    if (l->set[h] == off + 1) return;
    if (!l->set[h]) break;
  }
  l->set[h] = off + 1;
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 256;
    l->lines = realloc(l->lines, l->cap * sizeof *l->lines);
    if (!l->lines) amber_fatal("out of memory for the romulus log");
  }
  l->lines[l->n++] = off;
}

static void log_reset(struct rom_log *l) {
  if (l->n * 8 < l->setcap) {
    for (size_t i = 0; i < l->n; i++) {
      size_t h = (size_t)(l->lines[i] >> 6) * 0x9E3779B97F4A7C15ull >> 20;
      for (;; h++) {
        h &= l->setcap - 1;
        if (l->set[h] == l->lines[i] + 1) {
          l->set[h] = 0;
          break;
        }
      }
    }
    /* Removing entries breaks probe chains only if we leave holes inside a
     * chain; every entry of the set is removed here, so none remain. */
  } else if (l->setcap) {
    memset(l->set, 0, l->setcap * sizeof *l->set);
  }
  l->n = 0;
  l->last = 0;
  l->mutating = 0;
  l->unlogged = 0;
}

static void set_state(struct amber_heap *h, uint64_t s, int fence) {
  __atomic_store_n(&h->status->engine_state, s, __ATOMIC_RELEASE);
  amber_pm_wrote(&h->status->engine_state, 8);
  if (fence) amber_pm_persist(&h->status->engine_state, 8, AMBER_PM_HEADER);
  else amber_pm_flush(&h->status->engine_state, 8, AMBER_PM_HEADER);
}

static uint64_t each_changed_page(struct amber_heap *h, void (*fn)(struct amber_heap *, uint64_t off));
static void commit_unlogged(struct amber_heap *h);

/* ---- heap life cycle ---- */

static uint64_t rom_area_size(uint64_t data_size) { return data_size; }

/* From page p of the twins (np pages): how many pages read as zero in both
 * (*zero = 1: equal, nothing to look at; holes of a heap that is not full)
 * or may not (*zero = 0); at least 1. */
static uint64_t twin_run(const struct amber_heap *h, uint64_t p, uint64_t np, int *zero) {
  int zm, zb;
  uint64_t len = (np - p) * AMBER_PAGE;
  uint64_t m = amber_heap_extent(h, h->data + p * AMBER_PAGE, len, &zm);
  uint64_t b = amber_heap_extent(h, h->engine_area + p * AMBER_PAGE, len, &zb);
  *zero = zm && zb;
  uint64_t n = (*zero ? (m < b ? m : b) : !zm && !zb ? (m < b ? m : b) : zm ? b : m) / AMBER_PAGE;
  return n ? n : 1;
}

static void rom_format(struct amber_heap *h) {
  /* A new data area is its header and zeroes: make back the same. */
  memcpy(h->engine_area, h->data, AMBER_PAGE);
  h->status->engine_state = ROM_IDLE;
}

static int rom_validate(struct amber_heap *h) {
  uint64_t s = h->status->engine_state;
  if (s != ROM_IDLE && s != ROM_MUT && s != ROM_CPY)
    return amber_error("heap %s has a corrupt romulus state word (0x%llx); the file is damaged", h->path,
                       (unsigned long long)s);
  /* Read-only opens (amber info, amber check) build nothing on the heap;
   * amber check lists every problem itself. */
  if (!h->writable) return 0;
  /* The image recovery keeps (back while MUTATING, else main) is refused
   * before recovery writes anything. */
  if (amber_alloc_validate_image(h, s == ROM_MUT ? h->engine_area : h->data) != 0) return -1;
  /* IDLE: the twins are equal.  Their allocator metadata (data header, page
   * table; small) is compared at every open, so damage to either twin is
   * refused instead of used; amber check compares the rest. */
  if (s == ROM_IDLE) {
    uint64_t np = h->hdr.data_size / AMBER_PAGE;
    uint64_t meta = 1 + (np * sizeof(struct amber_page_desc) + AMBER_PAGE - 1) / AMBER_PAGE;
    for (uint64_t p = 0, judged = 0; p < meta; p++) {
      if (p >= judged) {
        int zero;
        judged = p + twin_run(h, p, meta, &zero);
        if (zero) {
          p = judged - 1;
          continue;
        }
      }
      if (memcmp(h->data + p * AMBER_PAGE, h->engine_area + p * AMBER_PAGE, AMBER_PAGE))
        return amber_error("heap %s: the romulus twins differ in allocator metadata page %llu (file offsets 0x%llx and 0x%llx) while "
                           "the heap is idle; the file is damaged: restore it from a copy (amber check lists every problem)",
                           h->path, (unsigned long long)p, (unsigned long long)(h->hdr.data_offset + p * AMBER_PAGE),
                           (unsigned long long)(h->hdr.engine_offset + p * AMBER_PAGE));
    }
  }
  return 0;
}

/* Copies `from` over `to` page by page, skipping equal pages (so untouched
 * sparse pages stay unallocated), and flushes what it wrote. */
static uint64_t copy_twin(const struct amber_heap *h, char *to, const char *from, uint64_t size, enum amber_pm_cat cat) {
  uint64_t changed = 0;
  for (uint64_t off = 0, judged = 0; off < size; off += AMBER_PAGE) {
    if (off >= judged) {
      int zero;
      judged = off + twin_run(h, off / AMBER_PAGE, size / AMBER_PAGE, &zero) * AMBER_PAGE;
      if (zero) {
        off = judged - AMBER_PAGE;
        continue;
      }
    }
    if (memcmp(to + off, from + off, AMBER_PAGE) == 0) continue;
    memcpy(to + off, from + off, AMBER_PAGE);
    amber_pm_wrote(to + off, AMBER_PAGE);
    amber_pm_flush(to + off, AMBER_PAGE, cat);
    changed++;
  }
  amber_pm_fence(cat);
  return changed;
}

static void rom_recover(struct amber_heap *h) {
  uint64_t s = h->status->engine_state;
  if (s == ROM_IDLE) return;
  uint64_t pages;
  /* MUTATING: main may hold part of a transaction; back is consistent.
   * COPYING: main is consistent; back may be half-copied.  Either copy is
   * idempotent, and the state changes only after it is durable, so a crash
   * here just repeats it. */
  if (s == ROM_MUT) pages = copy_twin(h, h->data, h->engine_area, h->hdr.data_size, AMBER_PM_DATA);
  else pages = copy_twin(h, h->engine_area, h->data, h->hdr.data_size, AMBER_PM_CKPT);
  set_state(h, ROM_IDLE, 1);
  amber_info("recovered heap %s: romulus state %s, %llu pages restored", h->path, s == ROM_MUT ? "MUTATING" : "COPYING",
             (unsigned long long)pages);
}

static int rom_check(struct amber_heap *h) {
  uint64_t s = h->status->engine_state;
  if (s != ROM_IDLE) {
    /* Recovery pending (amber check recovers a private copy first, so only
     * a caller that did not gets here): the twins may differ; the one
     * recovery keeps is checkable. */
    return amber_alloc_check(h, s == ROM_MUT ? h->engine_area : h->data, NULL, NULL);
  }
  /* IDLE: back is main's byte-for-byte twin.  Each run of differing pages
   * is one problem. */
  uint64_t np = h->hdr.data_size / AMBER_PAGE, first = amber_heap_dh(h)->first_page;
  int runs = 0;
  for (uint64_t p = 0, judged = 0; p < np; p++) {
    if (p >= judged) {
      int zero;
      judged = p + twin_run(h, p, np, &zero);
      if (zero) {
        p = judged - 1;
        continue;
      }
    }
    if (!memcmp(h->data + p * AMBER_PAGE, h->engine_area + p * AMBER_PAGE, AMBER_PAGE)) continue;
    uint64_t q = p + 1;
    while (q < np && (q < first) == (p < first) && memcmp(h->data + q * AMBER_PAGE, h->engine_area + q * AMBER_PAGE, AMBER_PAGE)) q++;
    if (++runs <= 20)
      amber_error("heap %s: romulus twins differ in %llu page%s from page %llu (data offset 0x%llx, file offsets 0x%llx and 0x%llx) "
                  "while the heap is idle: %s; restore the heap from a copy",
                  h->path, (unsigned long long)(q - p), q - p > 1 ? "s" : "", (unsigned long long)p,
                  (unsigned long long)(p * AMBER_PAGE), (unsigned long long)(h->hdr.data_offset + p * AMBER_PAGE),
                  (unsigned long long)(h->hdr.engine_offset + p * AMBER_PAGE),
                  p < first ? "the allocator metadata (data header, page table) is damaged in one of them"
                            : "one copy is damaged, or code amber did not instrument wrote the heap after the last commit");
    p = q - 1;
  }
  if (runs > 20) amber_error("heap %s: %d more runs of differing romulus pages not shown", h->path, runs - 20);
  return runs;
}

static void rom_open(struct amber_heap *h) {
  heap = h;
  meta_end = amber_heap_dh(h)->first_page * AMBER_PAGE;
}

/* The write lock within wait_ms: 0, or the transactions still holding it
 * out (a writer counts one).  Either way the writer flag is ours or a
 * running writer's, so no transaction starts from now on. */
static int write_lock_within(uint64_t wait_ms) {
  struct amber_wait w;
  amber_wait_start(&w, wait_ms);
  int have = 0;
  uint32_t readers;
  do {
    uint32_t z = 0;
    if (!have) have = __atomic_compare_exchange_n(&rw.writer, &z, 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
    readers = readers_in();
    if (have && !readers) return 0;
  } while (amber_wait_more(&w));
  return have ? (int)readers : 1;
}

static int rom_close(struct amber_heap *h, uint64_t wait_ms) {
  /* Blocks every later transaction: the process is going away.  A region
   * still running after the wait leaves the heap dirty: recovery puts the
   * consistent twin back, as after a crash. */
  int running = write_lock_within(wait_ms);
  /* Loads outside regions stop waiting for the read lock from here on
   * (read_lock_open): the writer flag may never be released again. */
  __atomic_store_n(&twin.closed, 1, __ATOMIC_RELEASE);
  if (running) return running;
  /* Every committed write went through the log, so the twins are equal,
   * unless code amber did not instrument wrote the heap outside regions.
   * Such writes are not crash-safe; say so, and keep them at least on a
   * clean exit (main is the truth: no transaction is running). */
  uint64_t differ = each_changed_page(h, NULL);
  if (differ) {
    amber_warn("%llu pages of heap %s were written outside AMBER regions by code amber did not instrument; "
               "those writes were not crash-safe (saved now, at a clean exit). Write persistent memory inside regions, "
               "from code compiled with amber-cc",
               (unsigned long long)differ, h->path);
    commit_unlogged(h); /* the clean close's status persist orders IDLE */
  }
  return 0;
}

/* ---- transactions ---- */

/* Ordinary memory needs nothing more than the lock: readers exclude
 * writers and writers each other.  A reader that is about to store to
 * ordinary memory another thread can reach becomes a writer (else two
 * readers would update it at once: docs/engines/romulus.md, "Ordinary
 * memory"). */
static void rom_begin(struct amber_thread *t) {
  if (t->writer) write_lock();
  else read_lock(t);
  t->vguard = t->writer ? 0 : AMBER_VGUARD_WRITES;
}

static void rom_vwrite(struct amber_thread *t, void *addr, size_t n) {
  (void)addr;
  (void)n;
  if (!t->writer) amber_tx_restart(t, AMBER_ABORT_UPGRADE);
}

static void rom_load(struct amber_thread *t, const void *addr, void *dst, size_t n) {
  /* In a transaction main is the truth (the lock keeps writers out, or this
   * is the writer: a stray batch too); outside, main may hold a running
   * writer's stores. */
  if (t->depth || t->batch) memcpy(dst, addr, n);
  else read_committed(t, addr, dst, n, heap);
}

static inline void begin_mutation(struct amber_thread *t, struct rom_log *l) {
  if (!l->mutating) {
    readers_to_back();
    /* Fence 1: MUTATING is durable before main changes. */
    set_state(heap, ROM_MUT, 1);
    l->mutating = 1;
    t->wrote = 1;
  }
}

static void rom_store(struct amber_thread *t, void *addr, const void *src, size_t n) {
  if (!t->writer) amber_tx_restart(t, AMBER_ABORT_UPGRADE);
  struct rom_log *l = log_of(t);
  begin_mutation(t, l);
  uint64_t off = (uint64_t)((char *)addr - heap->data);
  uint64_t first = off & ~(uint64_t)(AMBER_LINE - 1);
  if (first + 1 != l->last || off + n > first + AMBER_LINE) { /* not the line stored last */
    for (uint64_t line = first; line < off + n; line += AMBER_LINE) add_line(l, line);
    l->last = first + 1;
  }
  /* The pass's stores are 1, 2, 4 or 8 bytes: one load and one store
   * inline (overlap-safe), not two calls (--wrap's memmove and libc's:
   * 3% of yada's samples); longer ones may overlap their source. */
  if (n == 8 || n == 4 || n == 2 || n == 1) copy_bytes(addr, src, n);
  else memmove(addr, src, n);
  amber_pm_wrote(addr, n);
}

/* Irrevocable code that amber never instrumented may write main anywhere:
 * from now on main is MUTATING, and the commit compares the twins instead
 * of trusting the log. */
static void rom_unlogged(struct amber_thread *t) {
  struct rom_log *l = log_of(t);
  begin_mutation(t, l);
  l->unlogged = 1;
}

/* Calls fn on each page of main that differs from back, among the pages
 * that can hold data: the metadata pages and allocated pages (per either
 * twin's page table, so a page allocated or freed by the transaction
 * counts).  Returns how many. */
static uint64_t each_changed_page(struct amber_heap *h, void (*fn)(struct amber_heap *, uint64_t off)) {
  const struct amber_data_header *dh = amber_heap_dh(h);
  const struct amber_page_desc *pm = (const void *)(h->data + dh->pagetab_off);
  const struct amber_page_desc *pb = (const void *)(h->engine_area + dh->pagetab_off);
  uint64_t n = 0, run_end = 0, pages_judged = 0;
  int pages_zero = 0;
  for (uint64_t p = 0, judged = 0; p < dh->npages; p++) {
    if (p >= judged) {
      /* Descriptors that are zero in both twins: pages no object is on
       * (past the metadata and the last large object), skipped unread. */
      int zm, zb;
      uint64_t len = (dh->npages - p) * sizeof *pm;
      uint64_t a = amber_heap_extent(h, &pm[p], len, &zm) / sizeof *pm, b = amber_heap_extent(h, &pb[p], len, &zb) / sizeof *pb;
      uint64_t k = a < b ? a : b, must = dh->first_page > run_end ? dh->first_page : run_end;
      judged = p + (k ? k : 1);
      if (zm && zb && p >= must) {
        p = judged - 1;
        continue;
      }
      if (zm && zb && must < judged) judged = must; /* metadata or an object's pages: compared */
    }
    for (int twin = 0; twin < 2; twin++) {
      const struct amber_page_desc *d = twin ? &pb[p] : &pm[p];
      if (d->kind == AMBER_PAGE_LARGE && d->npages && p + d->npages > run_end) run_end = p + d->npages;
      if (d->kind == AMBER_PAGE_SLAB && p + 1 > run_end) run_end = p + 1;
    }
    if (p >= dh->first_page && p >= run_end) continue;
    if (p >= pages_judged) pages_judged = p + twin_run(h, p, dh->npages, &pages_zero);
    if (pages_zero) continue; /* a hole in both twins: equal */
    uint64_t off = p * AMBER_PAGE;
    if (memcmp(h->data + off, h->engine_area + off, AMBER_PAGE) == 0) continue;
    n++;
    if (fn) fn(h, off);
  }
  return n;
}

/* Only the lines that differ from back: a page changed by unlogged code
 * usually differs in a few lines, and flushing the rest is wasted media
 * bandwidth (the simulator's redundant-flush lint counts it). */
static void flush_main_page(struct amber_heap *h, uint64_t off) {
  for (uint64_t l = off; l < off + AMBER_PAGE; l += AMBER_LINE)
    if (memcmp(h->data + l, h->engine_area + l, AMBER_LINE))
      amber_pm_flush(h->data + l, AMBER_LINE, off < meta_end ? AMBER_PM_ALLOC : AMBER_PM_DATA);
}

static void copy_page_to_back(struct amber_heap *h, uint64_t off) {
  for (uint64_t l = off; l < off + AMBER_PAGE; l += AMBER_LINE) {
    if (!memcmp(h->data + l, h->engine_area + l, AMBER_LINE)) continue;
    memcpy(h->engine_area + l, h->data + l, AMBER_LINE);
    amber_pm_wrote(h->engine_area + l, AMBER_LINE);
    amber_pm_flush(h->engine_area + l, AMBER_LINE, AMBER_PM_CKPT);
  }
}

/* Commit of a transaction whose writes are not all in the log: the same
 * four fences, over every page that changed. */
static void commit_unlogged(struct amber_heap *h) {
  each_changed_page(h, flush_main_page);
  amber_pm_fence(AMBER_PM_DATA);
  set_state(h, ROM_CPY, 1);
  readers_to_main();
  each_changed_page(h, copy_page_to_back);
  amber_pm_fence(AMBER_PM_CKPT);
  set_state(h, ROM_IDLE, 0);
}

/* A writer's commit (its flush and fence sites keep this name: crashtest
 * plants by it).  noinline: rom_end's reader path saves no registers for
 * it. */
__attribute__((noinline)) static void rom_commit(struct amber_thread *t) {
  struct rom_log *l = log_of(t);
  if (l->mutating && l->unlogged) {
    commit_unlogged(heap);
    log_reset(l);
  } else if (l->mutating) {
    /* Fence 2: the transaction's lines of main are durable. */
    for (size_t i = 0; i < l->n; i++)
      amber_pm_flush(heap->data + l->lines[i], AMBER_LINE, l->lines[i] < meta_end ? AMBER_PM_ALLOC : AMBER_PM_DATA);
    amber_pm_fence(AMBER_PM_DATA);
    /* Fence 3: COPYING is durable; main is now the consistent twin, and
     * loads outside transactions read it from here on. */
    set_state(heap, ROM_CPY, 1);
    readers_to_main();
    /* Fence 4: back has caught up with main. */
    for (size_t i = 0; i < l->n; i++) {
      memcpy(heap->engine_area + l->lines[i], heap->data + l->lines[i], AMBER_LINE);
      amber_pm_wrote(heap->engine_area + l->lines[i], AMBER_LINE);
      amber_pm_flush(heap->engine_area + l->lines[i], AMBER_LINE, AMBER_PM_CKPT);
    }
    amber_pm_fence(AMBER_PM_CKPT);
    /* IDLE needs no fence of its own: the next transaction's MUTATING store
     * to the same line, or the clean close, orders it. */
    set_state(heap, ROM_IDLE, 0);
    log_reset(l);
  }
  write_unlock();
}

/* The engine's commit: a reader mutated nothing (its stores restart it as
 * a writer), it only leaves. */
static void rom_end(struct amber_thread *t) {
  if (!t->writer) read_unlock(t);
  else rom_commit(t);
}

/* A writer undone (amber_retry, amber_cancel): main gets back's bytes for every line the
 * transaction logged (while MUTATING back holds the last committed state,
 * I1), durable before IDLE says the twins are equal again (recovery trusts
 * main when IDLE).  Loads outside regions read back meanwhile. */
static void rollback(struct rom_log *l) {
  if (l->unlogged) AMBER_BUG("romulus: an irrevocable writer was undone");
  if (l->mutating) {
    for (size_t i = 0; i < l->n; i++) {
      char *m = heap->data + l->lines[i];
      memcpy(m, heap->engine_area + l->lines[i], AMBER_LINE);
      amber_pm_wrote(m, AMBER_LINE);
      amber_pm_flush(m, AMBER_LINE, l->lines[i] < meta_end ? AMBER_PM_ALLOC : AMBER_PM_DATA);
    }
    amber_pm_fence(AMBER_PM_DATA);
    readers_to_main();
    set_state(heap, ROM_IDLE, 0);
  }
  log_reset(l);
}

static void rom_abort(struct amber_thread *t) {
  /* Readers restart to become writers (they never wrote); writers are
   * undone only at amber_retry and amber_cancel. */
  if (t->writer) {
    rollback(log_of(t));
    write_unlock();
    return;
  }
  read_unlock(t);
}

const struct amber_engine amber_engine_romulus = {
    .name = "romulus",
    .id = AMBER_ENGINE_ROMULUS,
    .direct_reads = 1,
    .lazy_begin = 1,
    .area_size = rom_area_size,
    .format = rom_format,
    .validate = rom_validate,
    .check = rom_check,
    .recover = rom_recover,
    .open = rom_open,
    .close = rom_close,
    .begin = rom_begin,
    .load = rom_load,
    .store = rom_store,
    .commit = rom_end,
    .abort = rom_abort,
    .unlogged = rom_unlogged,
    .vwrite = rom_vwrite,
};
