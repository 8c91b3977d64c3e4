/* Ordinary memory under the MVCC engine (docs/engines/mvcc.md, "Ordinary
 * memory"): globals, the volatile heap and anything else outside the
 * persistent heap that a region reaches get concurrency control under the
 * engine's own timestamps, and no durability.
 *
 * Ordinary memory has one version, the bytes in place (code outside regions
 * reads them directly), so a transaction writes it in place, under a lock,
 * with an undo record (tx.c), and a reader that cannot use the bytes in
 * place restarts instead of reading an older version.  A lock table of
 * VT_N words covers it, one word per aligned 8 bytes (addresses VT_N * 8
 * apart share a word: a false conflict, never a missed one):
 *
 *   even: version << 1, the commit ts of the last transaction that wrote
 *         a location of this word (0: none since the process started), plus
 *         one for each aborted writer that held it since (mv_vabort)
 *   odd:  (struct mv_thread *) | 1, the writer holding it until it ends
 *
 * Invariant V1: while a transaction holds a word, every byte it stored to
 * the word's locations is there in place and nobody else stores to them in
 * a transaction; it releases the word with its commit ts (after its OLog
 * record is durable and its copies are linked: durable before visible, as
 * for blocks) or, aborting, with the version it found plus one, after tx.c
 * put the old bytes back (mv_vabort says why plus one).  A word's even
 * values therefore only grow: a commit ts is certainly after the claimer's
 * local-ts, which is certainly after the version it took (check_version),
 * and an abort adds one.  So an even value never comes back once the word
 * has changed, which the seqlock's "unchanged around the load" relies on.
 *
 * Invariant V2: a transaction uses a word's bytes only while the word is
 * unlocked with a version certainly older than its local-ts, or its own.  A
 * writer that takes the word after such a read draws its commit ts later
 * than the read, hence not certainly before local-ts: the reader then sees
 * the bytes of exactly the commits certainly older than its local-ts, the
 * same snapshot its blocks come from (txn.c, resolve).  So SI holds as
 * for blocks; SER and LIN writers validate their reads at commit (V3). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "amber.h"
#include "base/diag.h"
#include "base/shared.h"
#include "tx/tx.h"
#include "mvcc.h"

#define VT_BITS 20
#define VT_N (1u << VT_BITS)
/* Mapped at the first mvcc thread's set-up (mv_vtable), zero-filled by
 * the kernel; pages are touched as words are used.  Not a static array: 8
 * MiB of .bss is mapped at every start of a program that has the runtime
 * linked in, heap or not, about 3 us here (issue 27 item 5).  Never moved
 * or unmapped once published: lock-word pointers into it are kept (the
 * read and write logs) and handed to the pass's inline loads (rd.vtab). */
static uint64_t *vtab;

static inline uint64_t *word_in(uint64_t *tab, const void *p) { return &tab[((uintptr_t)p >> 3) & (VT_N - 1)]; }
static inline uint64_t *word_of(const struct mv_thread *m, const void *p) { return word_in(m->rd.vtab, p); }
static inline uint64_t held_by(const struct mv_thread *m) { return (uint64_t)(uintptr_t)m | 1u; }

/* The pass's inline loads of ordinary memory (amber_interface.h, ABI 5;
 * docs/engines/mvcc.md, "Inline loads") read a word's bytes in place when
 * it is even and below rd.vsettled, with the same check again after the
 * load (the seqlock of mv_vread): V2 holds for them, and (txn.c) the
 * version is so old that mv_vread's maxseen would change nothing. */
uint64_t *mv_vtable(uint64_t *mask) {
  *mask = VT_N - 1;
  uint64_t *t = __atomic_load_n(&vtab, __ATOMIC_ACQUIRE);
  if (t) return t;
  void *p = mmap(NULL, VT_N * sizeof *t, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    amber_fatal("cannot map mvcc's lock table for ordinary memory (%zu MiB): %s; free memory or raise the process's "
                "address-space limit (ulimit -v)", (size_t)(VT_N * sizeof *t) >> 20, strerror(errno));
  /* Two threads setting up at once: one table wins, the other is unmapped
   * before anyone saw it (acq_rel / acquire: a thread that takes the
   * winner's pointer sees its mapping). */
  if (__atomic_compare_exchange_n(&vtab, &t, (uint64_t *)p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return p;
  munmap(p, VT_N * sizeof *t);
  return t;
}

static noreturn void vrestart(struct amber_thread *t, struct mv_thread *m, enum amber_abort_reason why) {
  m->backoff = 1;
  /* As txn.c's mv_restart: a word version within the boundary of local-ts
   * may have failed it; the next attempt's local-ts is past the boundary. */
  if (why == AMBER_ABORT_VALIDATION || why == AMBER_ABORT_FUTURE) m->eager_next = 1;
  m->vconflicts++;
  amber_tx_restart(t, why);
}

/* Word *w is held by another transaction (value v): wait while that one is
 * committing (it releases the word without waiting for anyone), else
 * restart: an active holder may wait for us, and its bytes in place are
 * not committed. */
static void held_elsewhere(struct amber_thread *t, struct mv_thread *m, const uint64_t *w, uint64_t v) {
  struct mv_thread *o = (struct mv_thread *)(uintptr_t)(v & ~(uint64_t)1);
  uint64_t c = __atomic_load_n(&o->cell, __ATOMIC_ACQUIRE);
  if (MV_STATE(c) != MV_COMMITTING) {
    if (__atomic_load_n(w, __ATOMIC_ACQUIRE) != v) return; /* released meanwhile: look again */
    vrestart(t, m, AMBER_ABORT_CONFLICT);
  }
  unsigned spins = 0;
  while (__atomic_load_n(&o->cell, __ATOMIC_ACQUIRE) == c && __atomic_load_n(w, __ATOMIC_ACQUIRE) == v) mv_cpu_wait(&spins);
}

/* V2: a version this transaction may read or overwrite. */
static inline void check_version(struct amber_thread *t, struct mv_thread *m, uint64_t v) {
  if (__builtin_expect(!(amber_ordo_cmp_time(v >> 1, m->local) < 0), 0)) {
    if (m->recent) mv_stale_restart(t, m); /* txn.c, "Recent starts" */
    vrestart(t, m, m->mode == MV_LIN ? AMBER_ABORT_FUTURE : AMBER_ABORT_VALIDATION);
  }
  if ((v >> 1) > m->maxseen) m->maxseen = v >> 1; /* the wait before return (txn.c, wait_return) */
}

static void grow(void **p, size_t *cap, size_t elem) {
  size_t n = *cap ? *cap * 2 : 64;
  void *q = realloc(*p, n * elem);
  if (!q) amber_fatal("mvcc: out of memory for a transaction's ordinary-memory set (%zu entries)", n);
  *p = q;
  *cap = n;
}

/* Whole aligned words whose lock-table word is even and below rd.vsettled
 * (the pass's inline check, above, one word at a time): V2 holds, and
 * check_version would pass and change nothing (maxseen: the version is
 * older than local-ts by two boundaries).  So a vectorised load of the
 * program's that the pass does not read inline (__amber_loadn under the
 * read log; memcpy) costs about 18 instructions a word, not the general
 * loop's 60 (issue 19); the pass reads the others inline word by word, the
 * same way (amber_interface.h, ABI 5's ordinary memory).  Returns how
 * many bytes it read; the general loop does the rest from there (a held,
 * young or changing word, a partial word).  rd.vsettled is 0 while an
 * operational record captures the region's inputs: nothing here then. */
static inline size_t vread_settled(struct mv_thread *m, const char *p, char *d, size_t n, int track) {
  /* In locals: the copy to d may alias m as far as the compiler knows,
   * which would reload them at every word. */
  const uint64_t settled = m->rd.vsettled;
  uint64_t *const tab = m->rd.vtab;
  size_t i = 0;
  if ((uintptr_t)p & 7) return 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t *w = word_in(tab, p + i);
    uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    if ((v & 1) || v >= settled) break;
    uint64_t x = __atomic_load_n((const uint64_t *)(const void *)(p + i), __ATOMIC_RELAXED);
    /* The bytes are the version's only if the word did not change meanwhile
     * (a writer takes the word before it stores), as below. */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(w, __ATOMIC_RELAXED) != v) break;
    memcpy(d + i, &x, 8);
    if (track && (!m->rd.vn || m->rd.vlog[m->rd.vn - 1] != w)) {
      if (m->rd.vn == m->rd.vcap) break; /* the general loop grows the log and reads this word again */
      m->rd.vlog[m->rd.vn++] = w;
    }
  }
  return i;
}

/* The general loop of mv_vread: a word at a time, from where
 * vread_settled stopped.  Not inlined: its registers and spills stay out of
 * the whole-word path's way. */
static __attribute__((noinline)) void vread_words(struct amber_thread *t, struct mv_thread *m, const char *p, char *d,
                                                  size_t n, int track) {
  while (n) {
    size_t k = 8 - ((uintptr_t)p & 7);
    if (k > n) k = n;
    uint64_t *w = word_of(m, p);
    for (;;) {
      uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
      if (v & 1) {
        if (v == held_by(m)) {
          amber_shared_load(d, p, k);
          break;
        }
        held_elsewhere(t, m, w, v);
        continue;
      }
      check_version(t, m, v);
      amber_shared_load(d, p, k);
      /* The bytes are the version's only if the word did not change meanwhile
       * (a writer takes the word before it stores). */
      __atomic_thread_fence(__ATOMIC_ACQUIRE);
      if (__atomic_load_n(w, __ATOMIC_RELAXED) != v) continue;
      if (track && (!m->rd.vn || m->rd.vlog[m->rd.vn - 1] != w)) {
        if (m->rd.vn == m->rd.vcap) grow((void **)&m->rd.vlog, &m->rd.vcap, sizeof *m->rd.vlog);
        m->rd.vlog[m->rd.vn++] = w;
      }
      break;
    }
    p += k;
    d += k;
    n -= k;
  }
}

void mv_vread(struct amber_thread *t, const void *addr, void *dst, size_t n) {
  struct mv_thread *m = t->engine_data;
  int track = m->track; /* SER and LIN, logging (txn.c, mv_begin) */
  size_t done = vread_settled(m, addr, dst, n, track);
  if (__builtin_expect(done < n, 0)) vread_words(t, m, (const char *)addr + done, (char *)dst + done, n - done, track);
}

void mv_vwrite(struct amber_thread *t, void *addr, size_t n) {
  struct mv_thread *m = t->engine_data;
  uintptr_t a = (uintptr_t)addr & ~(uintptr_t)7, end = (uintptr_t)addr + n;
  for (; a < end; a += 8) {
    uint64_t *w = word_of(m, (const void *)a);
    for (;;) {
      uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
      if (v == held_by(m)) break;
      if (v & 1) {
        held_elsewhere(t, m, w, v);
        continue;
      }
      /* First committer wins, as for blocks (txn.c, mv_store). */
      check_version(t, m, v);
      if (m->nvw == m->capvw) grow((void **)&m->vw, &m->capvw, sizeof *m->vw);
      /* Seq_cst: before any store of ours to the word's locations (V1). */
      if (__atomic_compare_exchange_n(w, &v, held_by(m), 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
        m->vw[m->nvw].word = w;
        m->vw[m->nvw].old = v;
        m->nvw++;
        break;
      }
    }
  }
}

/* V3: a SER or LIN writer's reads of ordinary memory still hold at commit:
 * each word read is unlocked with a version certainly older than local-ts,
 * or held by this transaction (taken after the read, when it still was).
 * A word held by another transaction fails it: that one may commit before
 * us with what we read overwritten. */
int mv_vvalidate(struct mv_thread *m) {
  for (size_t i = 0; i < m->rd.vn; i++) {
    uint64_t v = __atomic_load_n(m->rd.vlog[i], __ATOMIC_SEQ_CST);
    if (v == held_by(m)) continue;
    if ((v & 1) || !(amber_ordo_cmp_time(v >> 1, m->local) < 0)) return 0;
  }
  return 1;
}

/* V1, commit: the words go to version cts.  Release: the bytes stored in
 * place are visible to whoever sees the new version. */
void mv_vrelease(struct mv_thread *m, uint64_t cts) {
  for (size_t i = 0; i < m->nvw; i++) __atomic_store_n(m->vw[i].word, cts << 1, __ATOMIC_RELEASE);
  m->vwritten += m->nvw;
  m->nvw = 0;
  m->rd.vn = 0;
}

/* V1, abort: runs after tx.c's undo put the old bytes back (undo_all
 * calls the engine's abort last).  Each word is released at the version it
 * had plus one, never at the version itself: a reader may have read the
 * word at version v, then our uncommitted bytes (we took the word and
 * stored meanwhile), and re-read the word after this release; had it found
 * v again, the seqlock (mv_vread, vread_settled, the pass's inline load:
 * "still v") would accept bytes no transaction committed (ABA), and SER and
 * LIN validation would not see it either (it checks the version, not the
 * bytes).  v + 1 differs from every value the word had before (they only
 * grow, V1), so that reader reads again.  The bytes under v + 1 are v's:
 * nothing committed to the word since v, so a reader whose local-ts is
 * certainly after v + 1 reads the snapshot V2 promises, and one whose is
 * not restarts (check_version), as it would for a commit; so does a SER or
 * LIN reader whose read of v is validated against v + 1 (V3).  Aborts are
 * rare, and the cost is a spurious restart at most, in the one case below.
 * v + 1 rather than a fresh timestamp: no
 * clock read, no wait (a fresh ts would be a new_time, and turn away
 * every reader that began within a boundary before the abort); of the
 * readers that could use v (local-ts above v + boundary) only one whose
 * local-ts is exactly v + boundary + 1 now restarts.  No wrap-around: v is
 * a ts below the clock.  Release: the restored bytes are visible to
 * whoever sees v + 1.  Nothing of this is on the commit path. */
void mv_vabort(struct mv_thread *m) {
  for (size_t i = m->nvw; i-- > 0;) __atomic_store_n(m->vw[i].word, m->vw[i].old + 2, __ATOMIC_RELEASE); /* version + 1, as a word */
  m->nvw = 0;
  m->rd.vn = 0;
}

/* Privatization safety, after a commit that wrote ordinary memory at cts:
 * returns once every transaction that may have read what this one changed
 * (an AMBER_ATOMIC transaction running with a local-ts not certainly after
 * cts) has ended.  A region that unlinks an object from a shared structure
 * can then use or free it outside regions: no transaction still running
 * reads it, or writes it in place and later restores it (undo) over the
 * program's own stores.  AMBER_PERSISTENT regions take their isolation from
 * the program's locks and are not waited for (one may wait for a lock this
 * thread holds). */
void mv_vquiesce(struct mv_thread *m, uint64_t cts) {
  for (struct mv_thread *o = __atomic_load_n(&mv.threads, __ATOMIC_ACQUIRE); o; o = o->next) {
    if (o == m) continue;
    uint64_t seq = __atomic_load_n(&o->txseq, __ATOMIC_SEQ_CST);
    unsigned spins = 0;
    int waited = 0;
    while ((seq & 1) && __atomic_load_n(&o->txseq, __ATOMIC_SEQ_CST) == seq) {
      uint64_t a = __atomic_load_n(&o->active, __ATOMIC_SEQ_CST);
      if (a == MV_INACTIVE || __atomic_load_n(&o->persistent, __ATOMIC_RELAXED)) break;
      if (a != MV_STARTING && amber_ordo_cmp_time(a, cts) > 0) break; /* it started after us: it sees our commit */
      waited = 1;
      mv_cpu_wait(&spins);
    }
    m->vquiesce_waits += waited;
  }
}
