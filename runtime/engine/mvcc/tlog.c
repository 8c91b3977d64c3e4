/* TLog rings, grace periods and reclamation (issue [5/7] part 7, simplest
 * correct form).
 *
 * Each thread owns a ring of fixed-size slots (MV_COPY_HDR + block bytes).
 * Copies are appended at `head`; those of the running transaction are
 * [txstart, head) and an abort rolls `head` back to `txstart` (they were
 * never linked, so nobody else can hold a pointer to them).  Committed copies
 * are freed from `tail`, in ring order, in two steps:
 *
 *  1. unlink: a checkpoint round (clog.c) copies the newest version older
 *     than its boundary to the CLog and, once that is durable, drops it and
 *     every older version from the chain (the block's `unl_ts` raised to
 *     its cts: mv_copy_unlinked): no
 *     running or future transaction reads anything older than it, and
 *     readers find its data in the checkpoint copy.
 *  2. free: after a grace period, when every transaction that was running
 *     when the copies were found unlinked has ended or parked (its txseq
 *     moved on; park.c).
 *
 * Invariant: a block's checkpoint copy (or, once drained, its master) holds
 * the newest version dropped from its chain, and a block's chain never
 * lacks a version some running transaction may still choose. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "base/diag.h"
#include "heap/heap.h"
#include "pm/pm.h"
#include "tx/tx.h"
#include "tx/op.h"
#include "mvcc.h"

struct mv_global mv;

/* LeakSanitizer's, when the program runs under it (weak: absent otherwise). */
extern void __lsan_register_root_region(const void *p, size_t size) __attribute__((weak));

__attribute__((noinline, cold)) struct mv_thread *mv_thread_new(struct amber_thread *t) {
  struct mv_thread *m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) amber_fatal("mvcc: out of memory for thread state");
  /* The state is never freed and points to malloc'd buffers (read sets,
   * the ordinary-memory sets): LeakSanitizer scans no mmap'd memory, so
   * under it the state is a root, or those buffers look leaked at exit. */
  if (__lsan_register_root_region) __lsan_register_root_region(m, sizeof *m);
  m->slot_size = MV_COPY_HDR + mv.block;
  m->nslots = mv.tlog_bytes / m->slot_size;
  if (m->nslots < 64) m->nslots = 64;
  m->ring = mmap(NULL, m->nslots * m->slot_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m->ring == MAP_FAILED)
    amber_fatal("mvcc: cannot map a TLog of %llu bytes for a new thread; lower AMBER_MVCC_TLOG",
                (unsigned long long)(m->nslots * m->slot_size));
  m->oq = mmap(NULL, mv_oq_n() * sizeof *m->oq, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m->oq == MAP_FAILED) amber_fatal("mvcc: out of memory for thread state");
  /* A thread state is never freed (a new thread reuses an ended one's), so
   * rings are handed out once each. */
  m->ring_id = __atomic_fetch_add(&mv.next_ring, 1, __ATOMIC_ACQ_REL);
  if (m->ring_id >= mv.max_threads)
    amber_fatal("more than %u threads ran transactions at once on heap %s, more than its OLog rings; create the heap with a "
                "larger AMBER_MVCC_THREADS",
                mv.max_threads, mv.heap->path);
  /* The slots' owner and ring are set as each is first handed out
   * (mv_ring_alloc), not here: writing them all would touch, and make the
   * kernel zero, the whole ring (8 MiB by default) at the thread's first
   * region, most of it never used by a short program (issue 27, item 5). */
  mv_ring_read_tail(m->ring_id, &m->otail, &m->oseq_tail, NULL, NULL);
  m->ohead = m->otail; /* open emptied every ring */
  if (amber_op_capturing() && amber_op_identity()) mv_writer_note(m->ring_id, amber_op_identity(), amber_ordo_boundary(), amber_op_program());
  m->oseq_head = m->oseq_tail;
  m->rng = 0x9E3779B97F4A7C15ull * (t->index + 1);
  /* The inline loads' constants (txn.c, inline_reads_begin sets the rest
   * at each begin): the state's owner and the process's lock table. */
  m->rd.self = m;
  m->rd.vtab = mv_vtable(&m->rd.vmask);
  struct mv_thread *h = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE);
  do m->next = h;
  while (!__atomic_compare_exchange_n(&mv.threads, &h, m, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
  t->engine_data = m;
  return m;
}

void mv_backoff(struct mv_thread *m) {
  amber_tx_batch_please(); /* what it waits for may be held by a stray batch (tx/batch.c) */
  unsigned r = m->retries < 40 ? m->retries++ : m->retries;
  m->rng = m->rng * 6364136223846793005ull + 1442695040888963407ull;
  unsigned jitter = (unsigned)(m->rng >> 40);
  if (r < 6) {
    unsigned n = (16u << r) + (jitter & ((16u << r) - 1));
    while (n--) __builtin_ia32_pause();
  } else if (r < 12) {
    sched_yield();
  } else {
    unsigned sh = r - 12 < 10 ? r - 12 : 10; /* 1 us .. ~1 ms */
    struct timespec ts = {0, (long)((1000u << sh) + (jitter & 1023))};
    nanosleep(&ts, NULL);
  }
}

uint64_t mv_horizon(void) {
  uint64_t bd = amber_ordo_boundary();
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  uint64_t h;
  if (amber_ordo_clk.mode == AMBER_ORDO_TSC) {
    uint64_t now = amber_ordo_get_time();
    h = now > bd ? now - bd : 0;
  } else {
    h = amber_ordo_new_time(amber_ordo_get_time()); /* logical: later starts draw larger */
  }
  for (struct mv_thread *o = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE); o; o = o->next) {
    uint64_t a = __atomic_load_n(&o->active, __ATOMIC_SEQ_CST);
    if (a == MV_STARTING) return 0;
    if (a != MV_INACTIVE && a < h) h = a;
  }
  return h;
}

void mv_reclaim(struct mv_thread *m, int all) {
  /* A checkpoint round unlinks every version it replaced; best effort (not
   * all) frees only what earlier rounds unlinked, so later updates of a
   * block can still coalesce in DRAM. */
  if (all) mv_checkpoint(m, !m->in_tx);
  if (m->gp_pending) {
    if (!mv_gp_over(m, m->gp_ticket)) return;
    m->n_freed += m->gp_upto - m->tail;
    m->tail = m->gp_upto;
    m->gp_pending = 0;
  }
  uint64_t limit = m->in_tx ? m->txstart : m->head;
  uint64_t pos = m->tail;
  while (pos < limit && mv_copy_unlinked(mv_slot(m, pos))) pos++;
  if (pos == m->tail) return;
  m->gp_ticket = mv_gp_ticket(m);
  m->gp_upto = pos;
  m->gp_pending = 1;
  if (mv_gp_over(m, m->gp_ticket)) {
    m->n_freed += pos - m->tail;
    m->tail = pos;
    m->gp_pending = 0;
  }
}

struct mv_copy *mv_ring_alloc(struct mv_thread *m) {
  if (m->head - m->tail >= m->nslots) {
    mv_reclaim(m, 1);
    if (m->head - m->tail >= m->nslots) return NULL;
  }
  struct mv_copy *x = mv_slot(m, m->head);
  /* First lap: the slot was never handed out; set its owner (published by
   * the CAS that locks a block with it).  An abort rolls head back, and the
   * slot, handed out again, already names us: it is not written again,
   * since a reader that met it in a block's lock word before the abort may
   * still be reading owner.  Later laps find them set.  Which slots were
   * handed out is `fresh` (head reaches it one slot at a time), not a read
   * of the slot: reading a page of the ring before writing it mapped the
   * zero page, and the write then took a copy-on-write fault that flushes
   * the TLB on every CPU running the process (kvserver under
   * redis-benchmark: 6 % of its CPU, perf; bench/README.md). */
  if (__builtin_expect(m->head == m->fresh, 0) && m->fresh < m->nslots) {
    x->owner = m;
    x->ring = m->ring_id;
    m->fresh++;
  }
  m->head++;
  return x;
}

void mv_sync_all(struct mv_thread *m, int wait_free) {
  uint64_t bd = amber_ordo_boundary();
  for (int pass = 0; pass < 4; pass++) {
    /* Let every commit so far fall certainly behind the horizon. */
    if (amber_ordo_clk.mode == AMBER_ORDO_TSC) {
      uint64_t t0 = amber_ordo_get_time();
      while (amber_ordo_get_time() <= t0 + 2 * bd + 1) __builtin_ia32_pause();
    }
    if (!mv_checkpoint(m, 1)) {
      sched_yield();
      continue;
    }
    if (!mv_clog_dirty()) break;
  }
  mv_clog_drain_all(m, wait_free);
}
