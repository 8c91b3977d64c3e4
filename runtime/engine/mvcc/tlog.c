/* TLog rings, grace periods and reclamation (issue [5/7] part 7, simplest
 * correct form).
 *
 * Each thread owns a ring of fixed-size slots (MV_COPY_HDR + block bytes).
 * Copies are appended at `head`; those of the running transaction are
 * [txstart, head) and an abort rolls `head` back to `txstart` (they were
 * never linked, so nobody else can hold a pointer to them).  Committed copies
 * are freed from `tail`, in ring order, in two steps:
 *
 *  1. unlink: once the copy is certainly older than the horizon (the oldest
 *     local-ts of every running transaction, and now - boundary), no running
 *     or future transaction reads anything older than the newest version
 *     older than the horizon.  Under the block's lock that version is
 *     written back to the master (flush, category data) and it and every
 *     older version are dropped from the chain (their `unlinked` flag set).
 *  2. free: after a grace period, when every transaction that was running
 *     when the copies were found unlinked has ended (its txseq moved on).
 *
 * Invariant: the master of a block holds the newest version dropped from its
 * chain, and a block's chain never lacks a version some running transaction
 * may still choose. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../../diag.h"
#include "../../heap.h"
#include "../../pm.h"
#include "../../tx.h"
#include "mvcc.h"

struct mv_global mv;

struct mv_thread *mv_thread_of(struct amber_thread *t) {
  struct mv_thread *m = t->engine_data;
  if (__builtin_expect(m != NULL, 1)) return m;
  m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) amber_fatal("mvcc: out of memory for thread state");
  m->slot_size = MV_COPY_HDR + mv.block;
  m->nslots = mv.tlog_bytes / m->slot_size;
  if (m->nslots < 64) m->nslots = 64;
  m->ring = mmap(NULL, m->nslots * m->slot_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m->ring == MAP_FAILED)
    amber_fatal("mvcc: cannot map a TLog of %llu bytes for a new thread; lower AMBER_MVCC_TLOG",
                (unsigned long long)(m->nslots * m->slot_size));
  for (uint64_t i = 0; i < m->nslots; i++) mv_slot(m, i)->owner = m;
  m->oq = mmap(NULL, MV_OQ * sizeof *m->oq, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m->oq == MAP_FAILED) amber_fatal("mvcc: out of memory for thread state");
  /* A thread state is never freed (a new thread reuses an ended one's), so
   * rings are handed out once each. */
  m->ring_id = __atomic_fetch_add(&mv.next_ring, 1, __ATOMIC_ACQ_REL);
  if (m->ring_id >= mv.max_threads)
    amber_fatal("more than %u threads ran transactions at once on heap %s, more than its OLog rings; create the heap with a "
                "larger AMBER_MVCC_THREADS",
                mv.max_threads, mv.heap->path);
  mv_ring_read_tail(m->ring_id, &m->otail, &m->oseq_tail);
  m->ohead = m->otail; /* open emptied every ring */
  m->oseq_head = m->oseq_tail;
  m->rng = 0x9E3779B97F4A7C15ull * (t->index + 1);
  struct mv_thread *h = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE);
  do m->next = h;
  while (!__atomic_compare_exchange_n(&mv.threads, &h, m, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
  t->engine_data = m;
  return m;
}

void mv_backoff(struct mv_thread *m) {
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

int mv_writeback_block(struct mv_thread *m, struct mv_ctl *c, uint64_t h) {
  uintptr_t z = 0;
  int mine = 0; /* the running transaction of m holds the lock: the chain is just as stable */
  if (!__atomic_compare_exchange_n(&c->lock, &z, (uintptr_t)m | 1u, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
    if (!z || (z & 1u) || ((struct mv_copy *)z)->owner != m) return 0;
    mine = 1;
  }
  /* The lock keeps writers (and other reclaimers) off the chain and the
   * master; readers never need what is dropped (see the file comment). */
  struct mv_copy **link = &c->head;
  struct mv_copy *v = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
  while (v && !(amber_ordo_cmp_time(h, v->cts) > 0)) {
    link = &v->older;
    v = __atomic_load_n(&v->older, __ATOMIC_ACQUIRE);
  }
  if (v) {
    char *master = mv.base + (c->blk << mv.shift);
    memcpy(master, v->data, mv.block);
    amber_pm_wrote(master, mv.block);
    amber_pm_flush(master, mv.block, AMBER_PM_DATA);
    m->n_written_back++;
    __atomic_store_n(link, NULL, __ATOMIC_RELEASE);
    if (m->ndetached == m->capdetached) {
      size_t cap = m->capdetached ? m->capdetached * 2 : 256;
      struct mv_copy **d = realloc(m->detached, cap * sizeof *d);
      if (!d) amber_fatal("mvcc: out of memory for %zu detached versions", cap);
      m->detached = d;
      m->capdetached = cap;
    }
    m->detached[m->ndetached++] = v;
  }
  int empty = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE) == NULL;
  if (!mine) __atomic_store_n(&c->lock, 0, __ATOMIC_RELEASE);
  return empty ? 1 : 2;
}

void mv_writeback_done(struct mv_thread *m) {
  if (!m->ndetached) return;
  /* The write-backs' data is durable before their timestamps, and both
   * before any copy they replace is flagged: an owner frees a flagged copy and then recycles the
   * OLog record that held it (plog.c). */
  amber_pm_fence(AMBER_PM_DATA);
  /* Then the timestamps, which vouch for that data (recovery skips every
   * record at or below a block's timestamp). */
  for (size_t i = 0; i < m->ndetached; i++) mv_mts_raise(m->detached[i]->ctl->blk, m->detached[i]->cts);
  amber_pm_fence(AMBER_PM_DATA);
  for (size_t i = 0; i < m->ndetached; i++)
    for (struct mv_copy *v = m->detached[i]; v;) {
      /* Read `older` first: once flagged, the owner may free the copy. */
      struct mv_copy *o = __atomic_load_n(&v->older, __ATOMIC_ACQUIRE);
      __atomic_store_n(&v->unlinked, 1, __ATOMIC_RELEASE);
      v = o;
    }
  m->ndetached = 0;
}

void mv_reclaim(struct mv_thread *m, int all) {
  if (m->gp_pending) {
    if (!mv_gp_over(m, m->gp_ticket)) return;
    m->n_freed += m->gp_upto - m->tail;
    m->tail = m->gp_upto;
    m->gp_pending = 0;
  }
  uint64_t limit = m->in_tx ? m->txstart : m->head;
  uint64_t pos = m->tail, h = 0;
  int have_h = 0;
  if (all) {
    /* Write back what can be written back now, then flag it (one fence). */
    for (uint64_t p = m->tail; p < limit; p++) {
      struct mv_copy *x = mv_slot(m, p);
      if (__atomic_load_n(&x->unlinked, __ATOMIC_ACQUIRE)) continue;
      if (!have_h) {
        h = mv_horizon();
        have_h = 1;
      }
      if (!(amber_ordo_cmp_time(h, x->cts) > 0)) break;
      mv_writeback_block(m, x->ctl, h);
    }
    mv_writeback_done(m);
  }
  /* Best effort (not all) frees only what others' write-backs unlinked,
   * so later updates of a block can still coalesce in DRAM. */
  while (pos < limit && __atomic_load_n(&mv_slot(m, pos)->unlinked, __ATOMIC_ACQUIRE)) pos++;
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
  return mv_slot(m, m->head++);
}

void mv_sync_all(struct mv_thread *m) {
  uint64_t bd = amber_ordo_boundary();
  for (int pass = 0; pass < 4; pass++) {
    /* Let every commit so far fall certainly behind the horizon. */
    if (amber_ordo_clk.mode == AMBER_ORDO_TSC) {
      uint64_t t0 = amber_ordo_get_time();
      while (amber_ordo_get_time() <= t0 + 2 * bd + 1) __builtin_ia32_pause();
    }
    uint64_t h = mv_horizon();
    if (!h) {
      sched_yield();
      continue;
    }
    uint64_t left = 0;
    for (uint64_t b = 0; b < mv.nblocks; b++) {
      struct mv_ctl *c = mv_ctl_of(b);
      if (!c || !__atomic_load_n(&c->head, __ATOMIC_ACQUIRE)) continue;
      if (mv_writeback_block(m, c, h) != 1) left++;
    }
    mv_writeback_done(m);
    if (!left) return;
  }
}
