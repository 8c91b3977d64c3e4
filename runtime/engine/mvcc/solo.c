/* Irrevocable transactions of the mvcc engine (docs/engines/mvcc.md,
 * "Irrevocable regions").
 *
 * A region that calls code amber could not instrument can neither be re-run
 * after that call nor keep its writes in private versions: the code reads
 * the heap through the canonical window, that is the master.  Such a
 * transaction restarts alone ("solo"):
 *  1. it takes mv.solo; every transaction (and read outside a region)
 *     waits at its start while mv.solo is held, and the solo thread waits
 *     for the running ones to end (Dekker: txseq, then mv.solo at a start;
 *     mv.solo, then txseq here);
 *  2. it writes every committed version back until no block has a version
 *     newer than the master and the CLog is empty, and keeps the round lock:
 *     the master is the newest state and no round or drain runs;
 *  3. the master holds the state as of c, and every master timestamp is
 *     below c (the invariant);
 *  4. it reads and writes the master in place.  Before the first write of a
 *     block, the block's master content goes to the CLog as an entry with
 *     cts max(mts, 1) < c and the block's master timestamp becomes 0, one
 *     fence: recovery's step 1 takes that entry as the state at c (an undo);
 *  5. commit: the written blocks are flushed, fence, then one CLog header
 *     write moves c past the commit's cts and empties the CLog: the commit
 *     point.  The master timestamps are raised to cts after it.
 * A crash before 5's header write: recovery puts the entries back, the
 * transaction never happened.  After it: the master holds the commit and c
 * is past it; a master timestamp still 0 only makes a later entry of the
 * block count as newer than the master, which it is.
 * It writes no OLog record: nothing after c needs one.
 *
 * A transaction too large for its logs runs the same way (txn.c,
 * "outgrown"); when the CLog ring fills, the undo entries go on through a
 * link entry into spill segments of free heap pages (clog.c), fenced like
 * the ring's, so the argument above is unchanged (docs/engines/mvcc.md,
 * "Large transactions"). */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/diag.h"
#include "pm/pm.h"
#include "tx/tx.h"
#include "mvcc.h"

/* The marker a solo transaction leaves in the lock of a block it wrote:
 * odd, so readers take it for a reclaimer and read on (there are none). */
static inline uintptr_t solo_mark(struct mv_thread *m) { return (uintptr_t)m | 1u; }

void mv_solo_wait(void) {
  unsigned spins = 0;
  while (__atomic_load_n(&mv.solo, __ATOMIC_ACQUIRE)) {
    if (++spins < 128) __builtin_ia32_pause();
    else sched_yield();
  }
}

void mv_solo_enter(struct mv_thread *m) {
  /* Fairness: transactions that waited for the last irrevocable one start
   * first, or a thread running irrevocable regions back to back would keep
   * every other thread out.  Bounded: a waiter may be descheduled. */
  for (unsigned i = 0; i < 1000 && __atomic_load_n(&mv.solo_waiters, __ATOMIC_ACQUIRE); i++) sched_yield();
  uintptr_t z = 0;
  while (!__atomic_compare_exchange_n(&mv.solo, &z, (uintptr_t)m, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    mv_solo_wait();
    z = 0;
  }
  for (struct mv_thread *o = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE); o; o = o->next)
    while (o != m && (__atomic_load_n(&o->txseq, __ATOMIC_SEQ_CST) & 1)) {
      amber_tx_batch_please(); /* it may be a stray batch (tx/batch.c) */
      sched_yield();
    }
  /* Nothing commits now, but a thread descheduled inside its start (active
   * STARTING, before it sees mv.solo) holds every round back until it
   * runs again: keep trying, politely. */
  for (unsigned pass = 0;; pass++) {
    mv_sync_all(m, 1);
    if (mv_clog_solo_lock()) break;
    if (pass < 64) {
      sched_yield();
      continue;
    }
    if (pass == 64 + 10000)
      AMBER_BUG("mvcc: the master is not up to date after %u write-backs (10 s) with no transaction running", pass);
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  m->solo = 1;
  m->nsolo = 0;
}

void mv_solo_started(struct mv_thread *m) {
  /* An undo entry's cts, max(mts, 1), must be below c: every mts is (the
   * invariant), and 1 is once any round ran.  On a heap that never had one,
   * c moves to local-ts: the master holds every earlier commit. */
  if (__atomic_load_n(&mv.c, __ATOMIC_ACQUIRE) < 2) mv_clog_write(m->local > 2 ? m->local : 2, mv_clog_solo_head(), mv_clog_solo_head());
}

static void push_written(struct mv_thread *m, struct mv_ctl *c) {
  if (m->nsolo == m->capsolo) {
    size_t cap = m->capsolo ? m->capsolo * 2 : 64;
    struct mv_ctl **n = realloc(m->solow, cap * sizeof *n);
    if (!n) amber_fatal("mvcc: out of memory for an irrevocable transaction's %zu blocks", cap);
    m->solow = n;
    m->capsolo = cap;
  }
  m->solow[m->nsolo++] = c;
}

void mv_solo_store(struct amber_thread *t, struct mv_thread *m, void *addr, const void *src, size_t n) {
  t->wrote = 1;
  char *p = addr;
  const char *s = src;
  while (n) {
    uint64_t blk, in;
    size_t k = mv_piece(p, n, &blk, &in);
    struct mv_ctl *c = mv_ctl_get(blk);
    char *master = mv.base + (blk << mv.shift);
    if (__atomic_load_n(&c->lock, __ATOMIC_RELAXED) != solo_mark(m)) {
      uint64_t was = __atomic_load_n(&mv.mts[blk], __ATOMIC_RELAXED);
      if (!mv_clog_undo(blk, was ? was : 1, master))
        amber_fatal("%s runs alone and in place and has written %zu distinct %llu-byte blocks (%llu bytes); their undo log "
                    "(%llu bytes so far) has no room left in heap %s (%llu bytes of data area): the transaction is larger "
                    "than the heap can hold; recreate it with a larger AMBER_HEAP_SIZE",
                    amber_tx_name(t), m->nsolo, (unsigned long long)mv.block,
                    (unsigned long long)(m->nsolo * mv.block), (unsigned long long)mv_clog_undo_bytes(), mv.heap->path,
                    (unsigned long long)mv.heap->hdr.data_size);
      __atomic_store_n(&mv.mts[blk], 0, __ATOMIC_RELAXED);
      amber_pm_wrote(&mv.mts[blk], sizeof mv.mts[blk]);
      amber_pm_flush(&mv.mts[blk], sizeof mv.mts[blk], AMBER_PM_CKPT);
      amber_pm_fence(AMBER_PM_CKPT); /* the undo is durable before the master changes */
      __atomic_store_n(&c->lock, solo_mark(m), __ATOMIC_RELAXED);
      push_written(m, c);
    }
    memcpy(master + in, s, k);
    amber_pm_wrote(master + in, k);
    p += k;
    s += k;
    n -= k;
  }
}

void mv_solo_commit(struct mv_thread *m) {
  if (m->nsolo) {
    for (size_t i = 0; i < m->nsolo; i++) amber_pm_flush(mv.base + (mv_ctl_blk(m->solow[i]) << mv.shift), mv.block, AMBER_PM_DATA);
    amber_pm_fence(AMBER_PM_DATA);
  }
  if (!m->nsolo) { /* read-only: nothing to make durable */
    mv_clog_solo_unlock(0);
    m->solo = 0;
    __atomic_add_fetch(&mv.solo_txns, 1, __ATOMIC_RELAXED);
    return;
  }
  uint64_t cts = amber_ordo_new_time(m->local);
  mv_clog_solo_unlock(cts + 1); /* the commit point */
  for (size_t i = 0; i < m->nsolo; i++) {
    mv_mts_raise(mv_ctl_blk(m->solow[i]), cts);
    __atomic_store_n(&m->solow[i]->lock, 0, __ATOMIC_RELEASE);
  }
  m->nsolo = 0;
  m->solo = 0;
  __atomic_add_fetch(&mv.solo_txns, 1, __ATOMIC_RELAXED);
}

void mv_solo_leave(void) { __atomic_store_n(&mv.solo, 0, __ATOMIC_RELEASE); }
