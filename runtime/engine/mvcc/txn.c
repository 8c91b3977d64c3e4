/* Transactions of the MVCC engine: begin, load, store, commit, abort, and
 * the three isolation levels (docs/engines/mvcc.md).
 *
 * Real-time order (docs/engines/mvcc.md, invariant 4): local-ts is the
 * clock at begin, with no wait; instead a transaction returns only once the
 * clock is past R + 2 boundaries, R the largest commit-ts it drew, read or
 * overwrote (wait_return).  So a transaction that begins after another
 * returned reads a clock above that one's R + boundary on any core, and
 * sees all of it; a version whose commit-ts is uncertain to a snapshot was
 * seen by no transaction that had returned when the snapshot was taken, so
 * "uncertain counts as not older" never hides what must be seen.  A
 * read-only transaction that read no recent version waits for nothing. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdnoreturn.h>

#include "base/diag.h"
#include "heap/heap.h"
#include "tx/op.h"
#include "pm/pm.h"
#include "tx/tx.h"
#include "amber.h"
#include "mvcc.h"

static noreturn void mv_restart(struct amber_thread *t, struct mv_thread *m, enum amber_abort_reason why, int backoff) {
  m->backoff = backoff;
  /* A version within the boundary of local-ts may have failed it: the next
   * attempt draws local-ts past the boundary, as if it began later. */
  if (why == AMBER_ABORT_VALIDATION || why == AMBER_ABORT_FUTURE) m->eager_next = 1;
  amber_tx_restart(t, why);
}

/* Before a transaction returns to the program: the clock past r + 2
 * boundaries, r the largest commit-ts it drew, read or overwrote (0: none).
 * A transaction that begins after this one returns then reads a clock above
 * r + boundary on any core: every version this one saw or made is certainly
 * older than its local-ts.  Old versions (the common read) cost one clock
 * read, or none when a clock value read before now (known_ts, by any
 * thread: a later read on any core is above it less a boundary) is past
 * r + 2 boundaries already. */
static inline void wait_return(struct mv_thread *m, uint64_t r) {
  if (!r || amber_ordo_clk.mode != AMBER_ORDO_TSC) return; /* the logical clock waited at begin */
  uint64_t b = amber_ordo_boundary();
  if (r + 2 * b < m->known_ts) return;
  uint64_t now = amber_ordo_get_time();
  if (__builtin_expect(now > r + 2 * b, 1)) {
    m->known_ts = now;
    return;
  }
  m->known_ts = amber_ordo_new_time(r + b);
}

/* Recent starts (docs/engines/mvcc.md, "Recent starts").  A transaction of
 * a region that commits without writing (AMBER_HINT_READONLY without
 * LOGREADS; under SER and LIN, one run without the read log) takes as its
 * clock value R one that some thread read before this start (the newest
 * commit ts, or this thread's known_ts) instead of reading the clock, with
 * local-ts = R - boundary, published before its first read as a clock
 * start publishes STARTING.  It reads only what is
 * newest and certainly older than local-ts: a chain head below it, the
 * checkpoint copy or the master of an empty chain, an ordinary word below
 * it.  Anything else restarts it with the clock (AMBER_ABORT_STALE).
 *  - Consistent: a commit after the start draws a cts above R - boundary
 *    (ORDO: a later clock read on any core), so none of its versions is
 *    accepted; a commit before the start that it accepts held all its
 *    blocks locked from before its cts until its versions were linked,
 *    so every block of it read after the start shows them.  The reads are
 *    the state at the start.
 *  - Real-time order: a transaction that returned before the start
 *    committed before it; its versions, or newer ones, are the newest.
 *  - Reclamation: only heads are read, and a head is not freed while it is
 *    the head; rounds after the publication keep what local-ts needs.
 *  - The wait before return: what it accepts is below R - 2 boundaries,
 *    and R was read before now (wait_return's known_ts).
 * Each stale restart doubles how many begins read the clock before the
 * next recent start (up to 64); a recent read-only commit resets it. */
static inline void note_recent(uint64_t cts) {
  if (cts > __atomic_load_n(&mv.recent_ts, __ATOMIC_RELAXED)) __atomic_store_n(&mv.recent_ts, cts, __ATOMIC_RELAXED);
}

/* For a region known to commit without writing (mv_begin's known_ro):
 * the clock value a recent start takes, or 0: read the clock. */
static inline uint64_t recent_start(const struct amber_thread *t, struct mv_thread *m) {
  if (!mv.recent_on || m->mode == MV_LATEST || m->solo || m->eager_next || t->op != AMBER_OP_OFF ||
      amber_ordo_clk.mode != AMBER_ORDO_TSC)
    return 0;
  if (m->recent_skip) {
    m->recent_skip--;
    return 0;
  }
  uint64_t r = __atomic_load_n(&mv.recent_ts, __ATOMIC_RELAXED);
  if (r > m->known_ts) m->known_ts = r;
  else r = m->known_ts;
  return r > 3 * amber_ordo_boundary() ? r : 0;
}

noreturn void mv_stale_restart(struct amber_thread *t, struct mv_thread *m) {
  m->recent_backoff = m->recent_backoff ? (m->recent_backoff < 64 ? m->recent_backoff * 2 : 64) : 1;
  m->recent_skip = m->recent_backoff;
  amber_tx_restart(t, AMBER_ABORT_STALE);
}

static void publish_end(struct mv_thread *m) {
  __atomic_store_n(&m->active, MV_INACTIVE, __ATOMIC_RELEASE);
  __atomic_store_n(&m->txseq, m->txseq + 1, __ATOMIC_RELEASE); /* even */
}

/* recent: a recent start's clock value (0: read the clock). */
static inline __attribute__((always_inline)) void publish_start(struct mv_thread *m, int wait_boundary, uint64_t recent) {
  int waited = 0;
  /* A recent start's local-ts is known before it publishes: it goes where
   * STARTING would (nothing to hold reclamation back for meanwhile). */
  uint64_t first = recent ? recent - amber_ordo_boundary() : MV_STARTING;
  for (;;) {
    /* While an irrevocable transaction runs, wait before publishing
     * STARTING: a STARTING thread holds its checkpoint rounds back. */
    uintptr_t s = __atomic_load_n(&mv.solo, __ATOMIC_RELAXED);
    if (__builtin_expect(s && s != (uintptr_t)m, 0)) {
      if (!waited) __atomic_add_fetch(&mv.solo_waiters, 1, __ATOMIC_SEQ_CST);
      waited = 1;
      mv_solo_wait();
      continue;
    }
    /* STARTING before the clock is read: a reclaimer either sees it (and
     * reclaims nothing) or read its horizon before our clock read.  A
     * recent start's local-ts instead: a reclaimer either sees it or
     * computed its horizon before our first read ("Recent starts"). */
    __atomic_store_n(&m->active, first, __ATOMIC_SEQ_CST);
    __atomic_store_n(&m->txseq, m->txseq + 1, __ATOMIC_SEQ_CST); /* odd */
    /* Dekker with mv_solo_enter: it either sees txseq odd and waits for
     * us, or we see it and wait for the irrevocable transaction. */
    s = __atomic_load_n(&mv.solo, __ATOMIC_SEQ_CST);
    /* Dekker with mv_close likewise: it sees txseq odd and waits for us,
     * or we see mv.closing and never run. */
    if (__builtin_expect(__atomic_load_n(&mv.closing, __ATOMIC_SEQ_CST), 0)) {
      publish_end(m);
      mv_close_turn_away(m);
    }
    if (__builtin_expect(!s || s == (uintptr_t)m, 1)) break;
    publish_end(m);
  }
  /* Counted until past the gate: the next irrevocable transaction lets
   * the waiters start first (solo.c). */
  if (__builtin_expect(waited, 0)) __atomic_sub_fetch(&mv.solo_waiters, 1, __ATOMIC_RELEASE);
  if (recent) {
    m->local = first;
    return;
  }
  uint64_t now = amber_ordo_get_time();
  if (now > m->known_ts) m->known_ts = now;
  /* The logical clock (no TSC) keeps the wait at begin: one increment, and
   * wait_return's argument needs a real clock. */
  if (wait_boundary || m->eager_next || amber_ordo_clk.mode != AMBER_ORDO_TSC) {
    m->local = amber_ordo_new_time(now + amber_ordo_boundary());
    m->eager_next = 0;
  } else {
    m->local = now;
  }
  __atomic_store_n(&m->active, m->local, __ATOMIC_SEQ_CST);
}

/* The pass's inline loads (amber_interface.h, ABI 5; docs/engines/mvcc.md,
 * "Inline loads"): what they may read in place for this transaction.  A
 * chain head of this thread's ring committed below `settled` is certainly
 * older than local-ts (cmp_time(cts, local) < 0 is cts + boundary < local);
 * AMBER_PERSISTENT regions (latest mode) and irrevocable transactions call
 * the runtime for every load. */
static void inline_reads_begin(const struct amber_thread *t, struct mv_thread *m) {
  uint64_t b = amber_ordo_boundary();
  m->rd.shift = mv.shift;
  m->rd.table = mv.table;
  m->rd.installed = mv.installed;
  /* rd.self, rd.vtab and rd.vmask never change: set once (tlog.c,
   * mv_thread_new). */
  m->rd.settled = m->local > b ? m->local - b : 0;
  /* Ordinary words: a version v with v + 2 boundaries < local-ts is
   * certainly older (V2), and the wait before return it would ask for
   * (maxseen) is over already: local-ts itself is past it. */
  m->rd.vsettled = m->local > 2 * b ? (m->local - 2 * b) << 1 : 0;
  /* An operational record captures what the region reads of ordinary
   * memory (entry/access.c): those loads take the callback.  (t->op is set
   * before the begin, at the region's start or restart; capture may only
   * stop later, amber_op_giveup.) */
  if (t->op >= AMBER_OP_CAPTURE) m->rd.vsettled = 0;
  m->rd.mode = m->mode == MV_LATEST || m->solo ? AMBER_READS_CALL
               : m->track                     ? AMBER_READS_MVCC_LOG
                                              : AMBER_READS_MVCC;
}

void mv_begin(struct amber_thread *t) {
  struct mv_thread *m = mv_thread_of(t);
  uint64_t used = m->head - m->tail;
  if (used > m->nslots / 2) mv_reclaim(m, used > m->nslots / 4 * 3);
  if (mv_olog_high(m)) mv_olog_make_room(m);
  /* Atomic: another thread's lock_block reads it.  Relaxed: it is stored
   * before the cell's release store below, and lock_block reads it after
   * an acquire load of the cell, so with this transaction's cell it sees
   * this transaction's kind. */
  __atomic_store_n(&m->persistent, t->kind == AMBER_KIND_PERSISTENT, __ATOMIC_RELAXED);
  m->mode = m->persistent             ? MV_LATEST
            : t->iso == AMBER_SI        ? MV_SI
            : t->iso == AMBER_SER       ? MV_SER
            : t->iso == AMBER_LIN       ? MV_LIN
                                        : mv.default_mode; /* AMBER_ISO_DEFAULT */
  /* Irrevocable regions run alone (solo.c).  One that reaches code the pass
   * knew was not instrumented starts so; one that met such code at run time
   * (through a pointer or another module) restarted alone there
   * (mv_unlogged) and starts so from then on: it does not re-run what it did
   * before the call, its output included, each time. */
  if (m->want_solo || (t->desc && ((t->desc->flags & AMBER_DESC_UNSEEN) ||
                                   (__atomic_load_n(&t->desc->runtime_state, __ATOMIC_RELAXED) & AMBER_HINT_IRREVOCABLE)))) {
    m->want_solo = 0;
    mv_solo_enter(m);
  }
  /* SER and LIN log what the transaction reads, for the validation at an
   * update's commit; a read-only commit validates nothing (mv_commit).  So
   * a region that committed without writing (AMBER_HINT_READONLY) and never
   * wrote (AMBER_HINT_LOGREADS) reads without the log (the inline loads as
   * under SI): one that writes after all restarts at its commit
   * (AMBER_ABORT_READLOG), before anything of it is published, and logs
   * from then on.  A region's first run logs (it may write: no restart
   * then).  What it reads is the same snapshot either way; only the
   * validation needs the log.  Logged always: amber's own transactions,
   * lock-delimited sections (no descriptor: they never restart), replay,
   * and a region that starts as a writer (t->writer: its descriptor or an
   * upgrade says so; an irrevocable call upgrades first).
   * docs/engines/mvcc.md, "Read logs". */
  int known_ro = t->desc && !t->writer &&
                 (__atomic_load_n(&t->desc->runtime_state, __ATOMIC_RELAXED) & (AMBER_HINT_LOGREADS | AMBER_HINT_READONLY)) ==
                     AMBER_HINT_READONLY;
  m->track = (m->mode == MV_SER || m->mode == MV_LIN) && (!known_ro || t->op == AMBER_OP_REPLAY);
  __atomic_store_n(&m->cell, ((__atomic_load_n(&m->cell, __ATOMIC_RELAXED) >> 2) + 1) << 2 | MV_ACTIVE, __ATOMIC_RELEASE);
  uint64_t recent = known_ro ? recent_start(t, m) : 0;
  m->recent = recent != 0;
  m->recent_starts += m->recent;
  publish_start(m, m->solo, recent);
  if (m->solo) mv_solo_started(m);
  /* Ordinary memory (vmem.c): AMBER_PERSISTENT regions take isolation from
   * the program's locks, and an irrevocable transaction runs alone. */
  t->vguard = m->mode == MV_LATEST || m->solo ? 0 : AMBER_VGUARD_READS | AMBER_VGUARD_WRITES;
  m->nvw = 0;
  m->rd.vn = 0;
  m->in_tx = 1;
  m->txstart = m->head;
  m->rd.n = 0;
  inline_reads_begin(t, m);
  t->engine_reads = &m->rd; /* until the transaction ends (tx.c clears it) */
  m->maxseen = 0;
  m->dep = 0;
  m->ncdep = 0;
  m->cdep_over = 0;
  m->cwait = 0;
}

static void end_tx(struct mv_thread *m) {
  m->in_tx = 0;
  m->recent = 0;
  m->rd.mode = AMBER_READS_CALL;
  if (mv.elr) amber_pm_group_leave(); /* ended without publishing (the commit's publish left already) */
  __atomic_store_n(&m->cell, ((__atomic_load_n(&m->cell, __ATOMIC_RELAXED) >> 2) + 1) << 2 | MV_IDLE, __ATOMIC_RELEASE);
  publish_end(m);
}

static inline void check_doomed(struct amber_thread *t, struct mv_thread *m) {
  /* An AMBER_PERSISTENT region wants a block this transaction holds. */
  if (__builtin_expect(MV_STATE(__atomic_load_n(&m->cell, __ATOMIC_RELAXED)) == MV_DOOMED, 0))
    mv_restart(t, m, AMBER_ABORT_CONFLICT, 1);
}

/* The transaction read or overwrites version v.  One written by another
 * thread is a dependency on a record of another OLog ring: the largest one
 * goes into this transaction's record, so that recovery can tell that
 * record's loss from a crash (docs/engines/mvcc.md, "Cross-ring
 * dependencies").  Own versions need nothing: the ring's own sequence
 * shows a lost earlier record of it. */
/* Early lock release: v's record may not be durable yet (v's ticket has
 * not completed).  The transaction then depends on it conditionally: its
 * record lists v (at most one entry per ring, its newest: a record of a
 * ring implies the earlier ones), and it returns to the program only once v
 * is durable (cwait; under deferred durability, amber_wait_durable).  The
 * owner sets v's ticket before linking v. */
static void add_cdep(struct mv_thread *m, uint64_t cts, uint32_t ring, uint64_t k) {
  if (k > m->cwait) m->cwait = k;
  for (unsigned i = 0; i < m->ncdep; i++)
    if (m->cdep_ring[i] == ring) {
      if (cts > m->cdep[i]) m->cdep[i] = cts;
      return;
    }
  if (m->ncdep == MV_CDEPS) {
    m->cdep_over = 1;
    return;
  }
  m->cdep[m->ncdep] = cts;
  m->cdep_ring[m->ncdep++] = (uint16_t)ring;
}

static void note_cdep(struct mv_thread *m, const struct mv_copy *v) {
  uint64_t k = v->ticket;
  if (amber_pm_fence_durable(k)) return;
  add_cdep(m, v->cts, v->ring, k);
}

static inline void note_dep(struct mv_thread *m, const struct mv_copy *v) {
  if (v->owner == m) return;
  if (v->cts > m->dep) {
    m->dep = v->cts;
    m->dep_ring = v->ring;
  }
  if (__builtin_expect(mv.elr, 0)) note_cdep(m, v);
}

/* Before a transaction that read or overwrote a version whose record was
 * not durable returns to the program (or commits without listing it):
 * wait until it is. */
static inline void wait_cdeps(struct mv_thread *m) {
  if (__builtin_expect(m->cwait != 0, 0)) {
    __atomic_add_fetch(&mv.elr_waits, 1, __ATOMIC_RELAXED);
    amber_pm_fence_wait(m->cwait);
    m->cwait = 0;
    m->ncdep = 0;
    m->cdep_over = 0;
  }
}

/* Deferred durability (amber_defer_durability_begin, not for stray
 * batches): the thread's commits return before they are durable, and the
 * program acknowledges nothing before amber_wait_durable. */
static inline int deferring(const struct amber_thread *t) { return t->defer_durability > 0 && !t->batch && mv.elr && !mv.eager; }

/* Before a region returns: with deferred durability, what it read that was
 * not durable is waited for by amber_wait_durable; else now. */
static inline void settle_cdeps(struct amber_thread *t, struct mv_thread *m) {
  if (deferring(t) && m->cwait) {
    if (m->cwait > m->dfr_wait) m->dfr_wait = m->cwait;
    m->cwait = 0;
    m->ncdep = 0;
    m->cdep_over = 0;
    return;
  }
  wait_cdeps(m);
}

/* The version of block `blk` this transaction reads. */
static const char *resolve(struct amber_thread *t, struct mv_thread *m, uint64_t blk) {
  char *master = mv.base + (blk << mv.shift);
  struct mv_ctl *c = mv_ctl_of(blk);
  if (!c) return master;
  unsigned spins = 0;
  for (;;) {
    uintptr_t l = __atomic_load_n(&c->lock, __ATOMIC_SEQ_CST);
    if (!l || (l & 1u)) break;
    struct mv_copy *p = (struct mv_copy *)l;
    if (p->owner == m) return p->data; /* our own pending copy */
    uint64_t w = __atomic_load_n(&p->owner->cell, __ATOMIC_SEQ_CST);
    if (MV_STATE(w) != MV_COMMITTING) break;
    /* Its copies are being linked: wait for its cell, then look again. */
    while (__atomic_load_n(&p->owner->cell, __ATOMIC_ACQUIRE) == w) mv_cpu_wait(&spins);
  }
  for (struct mv_copy *v = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE); v; v = __atomic_load_n(&v->older, __ATOMIC_ACQUIRE)) {
    if (m->mode == MV_LATEST) {
      if (v->cts > m->maxseen) m->maxseen = v->cts;
      note_dep(m, v);
      return v->data;
    }
    /* Uncertain counts as "not older". */
    if (amber_ordo_cmp_time(v->cts, m->local) < 0) {
      if (v->cts > m->maxseen) m->maxseen = v->cts; /* for wait_return; below local-ts, so no effect on commit-ts */
      note_dep(m, v);
      return v->data;
    }
    if (m->recent) mv_stale_restart(t, m); /* only the newest, and it is not certainly older */
    if (m->mode == MV_LIN) mv_restart(t, m, AMBER_ABORT_FUTURE, 0);
  }
  /* Every version older than the chain's oldest was checkpointed before it
   * left the chain (clog.c): the checkpoint copy, or once drained the
   * master, is the newest of them. */
  const char *k = __atomic_load_n(&c->ckpt, __ATOMIC_ACQUIRE);
  if (k && m->mode == MV_LATEST && mv_cold(c)->ckpt_ts > m->maxseen) m->maxseen = mv_cold(c)->ckpt_ts;
  return k ? k : master;
}

/* The read set: the pass's inline loads append to it too (the same
 * test against the last block), while rd.n < rd.cap. */
static void rs_push(struct mv_thread *m, uint64_t blk) {
  if (m->rd.n && m->rd.log[m->rd.n - 1] == blk) return;
  if (m->rd.n == m->rd.cap) {
    size_t cap = m->rd.cap ? m->rd.cap * 2 : 256;
    uint64_t *n = realloc(m->rd.log, cap * sizeof *n);
    if (!n) amber_fatal("mvcc: out of memory for a read set of %zu blocks", cap);
    m->rd.log = n;
    m->rd.cap = cap;
  }
  m->rd.log[m->rd.n++] = blk;
}

/* A read outside any transaction (code outside regions): the latest
 * committed state, protected from reclamation like a transaction. */
static void load_outside(struct mv_thread *m, const char *p, char *dst, size_t n) {
  int mode = m->mode;
  uint64_t seen = m->maxseen;
  m->mode = MV_LATEST;
  m->maxseen = 0;
  publish_start(m, 0, 0);
  while (n) {
    uint64_t blk, in;
    size_t k = mv_piece(p, n, &blk, &in);
    memcpy(dst, resolve(NULL, m, blk) + in, k);
    p += k;
    dst += k;
    n -= k;
  }
  publish_end(m);
  m->mode = mode;
  wait_cdeps(m); /* the program sees only durable commits */
  wait_return(m, m->maxseen); /* a region that begins after this read sees what it read */
  m->maxseen = seen;
}

void mv_load(struct amber_thread *t, const void *addr, void *dst, size_t n) {
  if (__builtin_expect(t->op == AMBER_OP_REPLAY, 0)) {
    mv_rp_load(addr, dst, n);
    return;
  }
  struct mv_thread *m = mv_thread_of(t);
  const char *p = addr;
  char *d = dst;
  if (!m->in_tx) {
    load_outside(m, p, d, n);
    return;
  }
  check_doomed(t, m);
  int track = m->track;
  while (n) {
    uint64_t blk, in;
    size_t k = mv_piece(p, n, &blk, &in);
    memcpy(d, resolve(t, m, blk) + in, k);
    if (track) rs_push(m, blk);
    p += k;
    d += k;
    n -= k;
  }
}

/* The transaction outgrew one of its logs (its TLog ring, its OLog ring, or
 * the CLog a checkpoint round needs): it restarts alone, in place, with an
 * undo log that grows into free heap pages (solo.c; docs/engines/mvcc.md,
 * "Large transactions"), so only the heap bounds its size.  A
 * lock-delimited section cannot restart: `why` is its error. */
static noreturn void outgrown(struct amber_thread *t, struct mv_thread *m, const char *why) {
  if (t->fase == AMBER_FASE_OPEN)
    amber_fatal("%s; a lock-delimited section (AMBER_FASE) cannot restart to run alone", why);
  m->want_solo = 1;
  __atomic_add_fetch(&mv.large_txns, 1, __ATOMIC_RELAXED);
  mv_restart(t, m, AMBER_ABORT_CAPACITY, 0);
}

static struct mv_copy *alloc_copy(struct amber_thread *t, struct mv_thread *m) {
  /* A stray batch commits before it fills a quarter of the TLog (whose
   * copies it pins until then) or its OLog record a quarter of the ring. */
  if (t && t->batch_split && m->head > m->txstart &&
      (m->head - m->txstart >= m->nslots / 4 || (m->head - m->txstart + 1) * (mv.block + 64) >= mv.olog_bytes / 4))
    amber_tx_batch_split(t);
  /* The first write: a commit that publishes a ticket follows (the
   * sync's leader waits for it: msync.c, gathering). */
  if (mv.elr && m->head == m->txstart) amber_pm_group_enter();
  for (;;) {
    struct mv_copy *x = mv_ring_alloc(m);
    if (x) return x;
    if (m->head - m->txstart >= m->nslots) {
      char why[512];
      snprintf(why, sizeof why, "%s writes more than %llu distinct %llu-byte blocks, more than its thread's TLog holds; raise AMBER_MVCC_TLOG "
                  "(now %llu bytes)",
                  amber_tx_name(t), (unsigned long long)m->nslots,
                  (unsigned long long)mv.block, (unsigned long long)mv.tlog_bytes);
      outgrown(t, m, why);
    }
    if (!m->persistent) mv_restart(t, m, AMBER_ABORT_CAPACITY, 1);
    /* AMBER_PERSISTENT regions never abort: wait for readers to move on,
     * parked, so that the wait does not include this transaction. */
    mv_wait_parked(m);
  }
}

/* Locks block c for copy x.  AMBER_ATOMIC transactions abort on a held
 * lock; AMBER_PERSISTENT regions wait (dooming an AMBER_ATOMIC holder),
 * parked: the holder may itself wait for reclamation (park.c).  A stray
 * batch that holds other blocks never waits: it returns 0, and the store
 * splits the batch (commits what it holds) and tries again holding nothing,
 * so that two batches never wait for each other (tx/batch.c).  The holder
 * may be a stray batch whose owner is busy elsewhere: every waiter asks
 * batches to commit (amber_tx_batch_please). */
static int lock_block(struct amber_thread *t, struct mv_thread *m, struct mv_ctl *c, struct mv_copy *x) {
  unsigned spins = 0;
  for (;;) {
    uintptr_t z = 0;
    /* Failure acquires: z is another thread's copy, whose header (owner)
     * that thread wrote before its CAS installed z here (a release: seq_cst);
     * reading z->owner below needs that CAS to happen before (TSan,
     * test/tsan, found the relaxed failure order). */
    if (__atomic_compare_exchange_n(&c->lock, &z, (uintptr_t)x, 0, __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE)) {
      mv_unpark(m);
      return 1;
    }
    if (z & 1u) { /* a reclaimer: it holds the lock for one block copy */
      mv_cpu_wait(&spins);
      continue;
    }
    struct mv_thread *o = ((struct mv_copy *)z)->owner;
    if (!spins) amber_tx_batch_please();
    if (t && t->batch_split && m->head - 1 > m->txstart) return 0;
    if (!m->persistent) {
      m->head--; /* x was never used */
      mv_restart(t, m, AMBER_ABORT_CONFLICT, 1);
    }
    uint64_t w = __atomic_load_n(&o->cell, __ATOMIC_ACQUIRE);
    if (MV_STATE(w) == MV_ACTIVE && !__atomic_load_n(&o->persistent, __ATOMIC_RELAXED))
      __atomic_compare_exchange_n(&o->cell, &w, (w & ~3ull) | MV_DOOMED, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
    /* Nothing here points into another thread's copy: a slot's owner is
     * immutable and its ring never unmapped. */
    if (!m->parked) mv_park(m);
    mv_cpu_wait(&spins);
  }
}

void mv_store(struct amber_thread *t, void *addr, const void *src, size_t n) {
  if (__builtin_expect(t->op == AMBER_OP_REPLAY, 0)) {
    mv_rp_store(addr, src, n);
    return;
  }
  struct mv_thread *m = mv_thread_of(t);
  if (!m->in_tx) AMBER_BUG("mvcc store outside a transaction");
  if (__builtin_expect(m->solo, 0)) {
    mv_solo_store(t, m, addr, src, n);
    return;
  }
  check_doomed(t, m);
  t->wrote = 1;
  char *p = addr;
  const char *s = src;
  while (n) {
    uint64_t blk, in;
    size_t k = mv_piece(p, n, &blk, &in);
    struct mv_ctl *c = mv_ctl_get(blk);
    uintptr_t l = __atomic_load_n(&c->lock, __ATOMIC_ACQUIRE);
    struct mv_copy *x;
    if (l && !(l & 1u) && ((struct mv_copy *)l)->owner == m) {
      x = (struct mv_copy *)l; /* written before in this transaction */
    } else {
      x = alloc_copy(t, m);
      x->ctl = c;
      x->older = NULL;
      x->cts = 0;
      x->lo = (uint32_t)mv.block;
      x->hi = 0;
      if (!lock_block(t, m, c, x)) {
        m->head--; /* x was never used */
        amber_tx_batch_split(t);
        continue; /* this piece again, in the next batch */
      }
      /* Locked: the chain holds committed versions only and cannot change. */
      struct mv_copy *h = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
      if (m->mode != MV_LATEST) {
        if (h && !(amber_ordo_cmp_time(h->cts, m->local) < 0)) {
          /* Write-write conflict with a transaction that committed after
           * our snapshot: first committer wins. */
          __atomic_store_n(&c->lock, 0, __ATOMIC_RELEASE);
          m->head--;
          mv_restart(t, m, m->mode == MV_LIN ? AMBER_ABORT_FUTURE : AMBER_ABORT_VALIDATION, 1);
        }
      }
      if (h && h->cts > m->maxseen) m->maxseen = h->cts;
      if (h) note_dep(m, h);
      const char *k = h ? NULL : __atomic_load_n(&c->ckpt, __ATOMIC_ACQUIRE);
      memcpy(x->data, h ? h->data : k ? k : mv.base + (blk << mv.shift), mv.block);
    }
    memcpy(x->data + in, s, k);
    if (in < x->lo) x->lo = (uint32_t)in;
    if (in + k > x->hi) x->hi = (uint32_t)(in + k);
    p += k;
    s += k;
    n -= k;
  }
}

static void atomic_max(uint64_t *p, uint64_t v) {
  uint64_t cur = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (cur < v && !__atomic_compare_exchange_n(p, &cur, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
}

/* Serializable read-set validation at commit timestamp cts: every block
 * read still has no version newer than local-ts, and no writer of it is
 * committing.  An active writer of a block we read will commit after us:
 * rts makes its commit-ts certainly larger than ours. */
static int validate(struct mv_thread *m, uint64_t cts) {
  for (size_t i = 0; i < m->rd.n; i++) {
    /* A block not written since the heap was opened (its bit clear) has
     * nothing to check: no lock, no version.  Its header is not read: a
     * read would map the zero page there, which the block's first writer
     * then copies (a copy-on-write fault and a TLB shootdown on every CPU;
     * the allocator's blocks, read and logged before they are written,
     * made thousands in a kvserver run: bench/README.md).  Seq_cst, as
     * mv_ctl_get's fetch_or: a clear bit read here precedes that fetch_or,
     * and so the installer's lock CAS, in the seq_cst order, exactly as a
     * load of the lock reading 0 would. */
    uint64_t b = m->rd.log[i];
    if (!mv_installed(b, __ATOMIC_SEQ_CST)) continue;
    struct mv_ctl *c = mv_ctl_at(b);
    uintptr_t l = __atomic_load_n(&c->lock, __ATOMIC_SEQ_CST);
    if (l && !(l & 1u)) {
      struct mv_thread *o = ((struct mv_copy *)l)->owner;
      if (o != m) {
        if (MV_STATE(__atomic_load_n(&o->cell, __ATOMIC_SEQ_CST)) == MV_COMMITTING) return 0;
        atomic_max(&c->rts, cts);
        /* Dekker with the writer's COMMITTING store and rts load. */
        if (MV_STATE(__atomic_load_n(&o->cell, __ATOMIC_SEQ_CST)) == MV_COMMITTING) return 0;
      }
    }
    struct mv_copy *h = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
    if (h && !(amber_ordo_cmp_time(h->cts, m->local) < 0)) return 0;
  }
  return 1;
}

/* AMBER_MVCC_EAGER: code built without the pass reads the data area (the
 * master) directly, so a commit is written back at once when no running
 * transaction can still need the master's older content (always, when no
 * other transaction runs): a checkpoint round, then a CLog drain. */
static void eager_writeback(struct mv_thread *m, uint64_t cts) {
  /* Cheap pre-check: a running transaction that is not certainly newer than
   * cts keeps the horizon below it; do not wait for the clock then. */
  for (struct mv_thread *o = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE); o; o = o->next) {
    uint64_t a = __atomic_load_n(&o->active, __ATOMIC_ACQUIRE);
    if (a == MV_STARTING || (a != MV_INACTIVE && !(amber_ordo_cmp_time(a, cts) > 0))) return;
  }
  if (amber_ordo_clk.mode == AMBER_ORDO_TSC) {
    uint64_t until = cts + 2 * amber_ordo_boundary() + 1;
    while (amber_ordo_get_time() <= until) __builtin_ia32_pause();
  }
  if (mv_checkpoint(m, 1)) mv_clog_drain_all(m, 0);
}

/* The cell from ACTIVE to COMMITTING (returns the ACTIVE word); a doomed
 * transaction (an AMBER_PERSISTENT region wants its block) restarts. */
static uint64_t to_committing(struct amber_thread *t, struct mv_thread *m) {
  uint64_t w = __atomic_load_n(&m->cell, __ATOMIC_ACQUIRE);
  if (MV_STATE(w) != MV_ACTIVE ||
      !__atomic_compare_exchange_n(&m->cell, &w, (w & ~3ull) | MV_COMMITTING, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
    mv_restart(t, m, AMBER_ABORT_CONFLICT, 1);
  return w;
}

/* SER and LIN: what the transaction read, blocks and ordinary words, still
 * holds at commit ts cts; else it restarts. */
static void validate_reads(struct amber_thread *t, struct mv_thread *m, uint64_t cts) {
  if (m->track && !(validate(m, cts) && mv_vvalidate(m)))
    mv_restart(t, m, AMBER_ABORT_VALIDATION, 1);
}

/* A transaction that wrote ordinary memory only: no OLog record (nothing
 * of it is durable), but a commit ts for the words it holds, validated
 * like any other for SER and LIN (vmem.c). */
static void commit_ordinary(struct amber_thread *t, struct mv_thread *m) {
  uint64_t w = to_committing(t, m);
  uint64_t cts = amber_ordo_new_time(m->local > m->maxseen ? m->local : m->maxseen);
  note_recent(cts);
  validate_reads(t, m, cts);
  wait_cdeps(m); /* its ordinary words may hold what it read: released once that is durable */
  mv_vrelease(m, cts);
  __atomic_store_n(&m->cell, ((w >> 2) + 1) << 2 | MV_IDLE, __ATOMIC_SEQ_CST);
  end_tx(m);
  m->retries = 0;
  mv_vquiesce(m, cts);
  wait_return(m, cts);
}

/* The commit of a transaction that wrote, or runs alone (mv_commit). */
static __attribute__((noinline)) void commit_update(struct amber_thread *t, struct mv_thread *m) {
  if (__builtin_expect(m->solo, 0)) {
    mv_solo_commit(m);
    end_tx(m);
    mv_solo_leave();
    m->retries = 0;
    return;
  }
  /* It wrote, but did not log its reads (mv_begin), or started recently
   * (any level: its local-ts may miss a commit that returned before it
   * began): run it again with the log and the clock.  Nothing of it is
   * published yet; mv_abort releases its locks. */
  if (__builtin_expect(m->recent || (!m->track && (m->mode == MV_SER || m->mode == MV_LIN)), 0)) {
    __atomic_fetch_or(&t->desc->runtime_state, AMBER_HINT_LOGREADS, __ATOMIC_RELAXED);
    amber_tx_restart(t, m->mode == MV_SI ? AMBER_ABORT_STALE : AMBER_ABORT_READLOG);
  }
  /* A region that writes logs its reads from now on, even after it
   * commits without writing (mv_begin). */
  if (t->desc && !(__atomic_load_n(&t->desc->runtime_state, __ATOMIC_RELAXED) & AMBER_HINT_LOGREADS))
    __atomic_fetch_or(&t->desc->runtime_state, AMBER_HINT_LOGREADS, __ATOMIC_RELAXED);
  if (m->head == m->txstart) {
    commit_ordinary(t, m);
    return;
  }
  /* A checkpoint round takes all of a transaction's blocks at once. */
  if (m->head - m->txstart > mv.clog_n) {
    char why[512];
    snprintf(why, sizeof why, "%s writes %llu distinct %llu-byte blocks, more than the CLog of heap %s holds (%llu); raise AMBER_MVCC_CLOG "
                "for new heaps",
                amber_tx_name(t), (unsigned long long)(m->head - m->txstart),
                (unsigned long long)mv.block, mv.heap->path, (unsigned long long)mv.clog_n);
    outgrown(t, m, why);
  }
  /* Room in the OLog for this transaction's record, before anything is
   * published (its blocks stay locked meanwhile): the operational record
   * when its inputs were captured and it is the smaller one.  Both carry
   * the same trailer of conditional dependencies (mv_cdep_bytes): room for
   * the ones noted so far and the own ring's one added below (deferred
   * durability); wait_cdeps below may only drop them. */
  uint64_t rec = mv_rec_size(m);
  const char *in = NULL;
  if (t->op == AMBER_OP_CAPTURE && mv_op_rec_size(t->opn) <= rec) {
    in = t->opbuf;
    rec = mv_op_rec_size(t->opn);
  }
  for (;;) {
    unsigned most = m->ncdep + (m->own_ticket != 0);
    uint64_t room = rec + mv_cdep_bytes(most < MV_CDEPS ? most : MV_CDEPS);
    int r = mv_olog_reserve(m, room);
    if (r > 0) break;
    if (r < 0) {
      char why[512];
      snprintf(why, sizeof why, "%s writes a %llu-byte OLog record, more than its thread's OLog ring holds; raise AMBER_MVCC_OLOG for "
                  "new heaps (this heap's rings hold %llu bytes)",
                  amber_tx_name(t), (unsigned long long)room,
                  (unsigned long long)mv.olog_bytes);
      outgrown(t, m, why);
    }
    if (!m->persistent) mv_restart(t, m, AMBER_ABORT_CAPACITY, 1);
    mv_wait_parked(m); /* AMBER_PERSISTENT regions never abort: wait for readers to move on (park.c) */
  }
  /* Early lock release (docs/engines/mvcc.md): the record's durability is
   * waited for after the locks are released, and the record lists what it
   * read that was not durable yet.  Not for a transaction that wrote
   * ordinary memory: what it wrote there is visible at once and
   * survives nothing, so it keeps its locks until durable, and waits for
   * what it read first.  More conditional dependencies than a record holds:
   * wait for them before committing. */
  int defer = mv.elr && !m->nvw;
  /* The thread's previous record may not be durable yet (deferred
   * durability): this record names it, its own ring's, so that recovery
   * takes the two for a batch a crash tore, not damage (scan.c). */
  if (m->own_ticket && !amber_pm_fence_durable(m->own_ticket)) add_cdep(m, m->own_cts, m->ring_id, m->own_ticket);
  if (m->cdep_over || (m->nvw && m->cwait)) wait_cdeps(m);
  uint64_t w = to_committing(t, m);
  uint64_t mx = m->local > m->maxseen ? m->local : m->maxseen;
  for (uint64_t pos = m->txstart; pos < m->head; pos++) {
    uint64_t r = __atomic_load_n(&mv_slot(m, pos)->ctl->rts, __ATOMIC_SEQ_CST);
    if (r > mx) mx = r;
  }
  uint64_t cts = amber_ordo_new_time(mx);
  note_recent(cts);
  validate_reads(t, m, cts);
  if (mv.check) pthread_rwlock_rdlock(&mv_check_lock);
  /* Durable before visible: one record, one fence.  With early lock
   * release, visible before durable: the fence's second half comes after
   * the unlock, and the region returns only after it. */
  uint64_t ticket = mv_olog_append(m, cts, rec + mv_cdep_bytes(m->ncdep), in ? t->desc->op_id : 0, in, (uint32_t)t->opn, defer);
  if (ticket) {
    __atomic_add_fetch(&mv.elr_commits, 1, __ATOMIC_RELAXED);
    if (m->ncdep) __atomic_add_fetch(&mv.elr_conditional, 1, __ATOMIC_RELAXED);
  }
  /* Link every copy with its final cts, then leave COMMITTING: a reader that
   * met one of our locks while COMMITTING waited, and now sees all of them. */
  for (uint64_t pos = m->txstart; pos < m->head; pos++) {
    struct mv_copy *x = mv_slot(m, pos);
    x->cts = cts;
    x->ticket = ticket; /* before the link: a reader that finds x reads it */
    x->older = __atomic_load_n(&x->ctl->head, __ATOMIC_ACQUIRE);
    __atomic_store_n(&x->ctl->head, x, __ATOMIC_RELEASE);
  }
  /* Ordinary memory at the same cts, while COMMITTING: a reader that waited
   * on one of our words sees it released when our cell changes. */
  size_t vw = m->nvw;
  mv_vrelease(m, cts);
  __atomic_store_n(&m->cell, ((w >> 2) + 1) << 2 | MV_IDLE, __ATOMIC_SEQ_CST);
  for (uint64_t pos = m->txstart; pos < m->head; pos++)
    __atomic_store_n(&mv_slot(m, pos)->ctl->lock, 0, __ATOMIC_RELEASE);
  /* On the dirty list before this transaction stops holding the horizon
   * back: a round whose boundary is above cts finds these blocks. */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  for (uint64_t pos = m->txstart; pos < m->head; pos++) mv_dirty(mv_slot(m, pos)->ctl);
  if (mv.check) pthread_rwlock_unlock(&mv_check_lock);
  /* Durable before the reclamation horizon moves past local-ts (no
   * checkpoint round takes an undurable version) and before the region
   * returns (no acknowledged commit is lost).  This thread leads the sync
   * itself when none runs (msync.c). */
  /* Deferred durability: the wait is amber_wait_durable's (the ticket is at
   * least every dependency's, and the program acknowledges nothing before
   * it); the horizon may move on meanwhile: a checkpoint round that takes
   * these versions fences after this publish, and a sync covers every range
   * published before it started (msync.c), so the record and its
   * dependencies are durable before the round's boundary is. */
  m->own_ticket = ticket;
  m->own_cts = cts;
  if (ticket && deferring(t)) {
    if (ticket > m->dfr_wait) m->dfr_wait = ticket;
  } else if (ticket) {
    amber_pm_fence_wait(ticket);
  }
  m->cwait = 0; /* the ticket is at least every dependency's */
  end_tx(m);
  m->retries = 0;
  if (vw) mv_vquiesce(m, cts);
  if (mv.eager) eager_writeback(m, cts);
  wait_return(m, cts);
}

void mv_commit(struct amber_thread *t) {
  struct mv_thread *m = mv_thread_of(t);
  if (!m->in_tx) return;
  /* Read-only (nothing shared was written), not alone: the common commit,
   * in a small frame (commit_update's holds its messages' buffers). */
  if (__builtin_expect(!m->solo && m->head == m->txstart && !m->nvw, 1)) {
    /* Its region may read without the log (SER, LIN) and start recently
     * (every level) from now on (mv_begin). */
    if (t->desc &&
        !(__atomic_load_n(&t->desc->runtime_state, __ATOMIC_RELAXED) & (AMBER_HINT_LOGREADS | AMBER_HINT_READONLY)))
      __atomic_fetch_or(&t->desc->runtime_state, AMBER_HINT_READONLY, __ATOMIC_RELAXED);
    if (m->recent) m->recent_backoff = 0;
    settle_cdeps(t, m);
    end_tx(m);
    m->retries = 0;
    wait_return(m, m->maxseen);
    return;
  }
  commit_update(t, m);
}

void mv_abort(struct amber_thread *t) {
  struct mv_thread *m = t->engine_data;
  if (!m || !m->in_tx) return;
  /* Nothing but amber_retry / amber_cancel undoes it (it runs alone and
   * never waits for a lock), and its stores are in place, undone only by
   * recovery. */
  if (m->solo)
    amber_fatal("%s in irrevocable region %s (%s:%u): it runs alone and in place because it calls code amber could "
                "not instrument, so it cannot be undone; move that call out of the region, or decide before the region",
                amber_tx_undo_call(t), t->desc && t->desc->name ? t->desc->name : "?", t->desc && t->desc->file ? t->desc->file : "?",
                t->desc ? t->desc->line : 0);
  for (uint64_t pos = m->txstart; pos < m->head; pos++) {
    struct mv_copy *x = mv_slot(m, pos);
    if (__atomic_load_n(&x->ctl->lock, __ATOMIC_ACQUIRE) == (uintptr_t)x) __atomic_store_n(&x->ctl->lock, 0, __ATOMIC_RELEASE);
  }
  m->head = m->txstart; /* never linked: nobody else saw these copies */
  mv_vabort(m);
  end_tx(m);
  /* A cancelled region returns to the program, which may act on what it read. */
  if (t->undoing == AMBER_ABORT_CANCEL) {
    settle_cdeps(t, m);
    wait_return(m, m->maxseen);
  }
  if (m->backoff) {
    m->backoff = 0;
    mv_backoff(m);
  }
}

/* The transaction is about to call code amber could not instrument: it
 * restarts alone, in place (solo.c); there, the call just proceeds (the
 * code reads the master, which is current, and cannot write the heap: the
 * canonical window is read-only). */
void mv_unlogged(struct amber_thread *t) {
  struct mv_thread *m = mv_thread_of(t);
  if (m->solo) return;
  if (t->fase == AMBER_FASE_OPEN)
    amber_fatal("a lock-delimited section (AMBER_FASE) calls code amber could not instrument; the mvcc engine cannot restart "
                "the section to run it alone: keep such calls out of the section, or use AMBER_ENGINE=romulus for new heaps");
  m->want_solo = 1;
  if (t->desc) __atomic_fetch_or(&t->desc->runtime_state, AMBER_HINT_IRREVOCABLE, __ATOMIC_RELAXED);
  amber_tx_restart(t, AMBER_ABORT_IRREVOCABLE);
}

/* amber_wait_durable: every commit of this thread, and what its regions
 * read, durable.  One wait for the largest ticket: syncs complete in
 * ticket order (msync.c), so the smaller ones are durable too. */
void mv_wait_durable(struct amber_thread *t) {
  struct mv_thread *m = t->engine_data;
  if (!m || !m->dfr_wait) return;
  amber_pm_fence_wait(m->dfr_wait);
  m->dfr_wait = 0;
}

/* amber_durable_token: the same ticket, left for another thread to wait
 * for (kept here too: a later amber_wait_durable still covers it, and
 * finds it durable at once by then). */
uint64_t mv_durable_token(struct amber_thread *t) {
  struct mv_thread *m = t->engine_data;
  if (!m || !m->dfr_wait) return 0;
  if (amber_pm_fence_durable(m->dfr_wait)) m->dfr_wait = 0;
  return m->dfr_wait;
}
