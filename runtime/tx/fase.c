/* Lock-delimited failure-atomic sections (AMBER_FASE=locks, the Atlas
 * model): the persistent stores a thread makes between its outermost
 * acquisition of a program lock (pthread mutex, rwlock for writing) and the
 * matching release are one failure-atomic section, durable at that release.
 *
 * Isolation is the program's: its locks keep other threads away from the
 * data a section writes.  The engine still isolates (romulus: its global
 * writer lock; mvcc: block locks, which a section's AMBER_KIND_PERSISTENT
 * transaction waits for), and a thread that holds engine isolation while it
 * waits for a program lock held by a thread that waits for that isolation
 * would deadlock (romulus: any two sections with nested locks; mvcc: two
 * objects under different program locks in one version block).  So
 * sections are serialised by one section lock, taken before the program's
 * outermost lock and released after its release:
 *
 * Invariant: a thread holds a program lock taken through the interceptors
 * only while it holds the section lock.
 *
 * Hence a thread waiting for the section lock holds no program lock, and
 * the section holder waits only for program locks nobody else holds and
 * for engine isolation held by transactions that take no program lock
 * (lone stores, regions): no cycle.  (A region that takes a program lock
 * inside itself orders the section lock after the engine's isolation; that
 * is the one order left that can deadlock, docs/guide.md.) */
#include "fase.h"

#include <errno.h>
#include <string.h>

#include "base/diag.h"
#include "base/options.h"
#include "tx.h"

int amber_fase_locks;

/* Serialises sections (the invariant above).  libamber's own calls reach
 * the C library's mutex functions (the --wrap list), not the interceptors. */
static pthread_mutex_t section_lock = PTHREAD_MUTEX_INITIALIZER;

void amber_fase_init(void) {
  const char *v = amber_opt.fase;
  if (!v || !v[0] || !strcmp(v, "none")) return;
  if (strcmp(v, "locks"))
    amber_fatal("AMBER_FASE=%s is not a section mode; use none (the default) or locks (docs/guide.md)", v);
  __atomic_store_n(&amber_fase_locks, 1, __ATOMIC_RELAXED);
}

int amber_fase_enter(struct amber_thread *t, const struct timespec *abstime) {
  if (t->fase_locks > 0) return 0;
  int e = abstime ? pthread_mutex_timedlock(&section_lock, abstime) : pthread_mutex_lock(&section_lock);
  if (e) return e == 1 ? EINVAL : e;
  return 1;
}

void amber_fase_entered(struct amber_thread *t, int outer, int ok) {
  if (ok) {
    t->fase_locks++;
    if (outer) t->fase = AMBER_FASE_HELD;
  } else if (outer) {
    pthread_mutex_unlock(&section_lock);
  }
}

/* Commits the section's transaction, if its first store opened one. */
static void commit_section(struct amber_thread *t, const char *what) {
  if (t->fase != AMBER_FASE_OPEN) return;
  if (t->depth != 1)
    amber_fatal("%s ended a lock-delimited section (AMBER_FASE=locks) inside an AMBER region that began inside the section; "
                "release the outermost lock after the region ends",
                what);
  amber_tx_section_commit(t);
}

int amber_fase_leave(struct amber_thread *t) {
  if (t->fase_locks == 0) return -1;
  if (t->fase_locks > 1) return 0;
  commit_section(t, "the outermost unlock");
  return 1;
}

void amber_fase_left(struct amber_thread *t, int outer, int ok) {
  /* On failure the section goes on (its transaction, if committed, is
   * reopened by its next store). */
  if (outer < 0 || !ok) return;
  t->fase_locks--;
  if (outer) {
    t->fase = AMBER_FASE_NONE;
    pthread_mutex_unlock(&section_lock);
  }
}

int amber_fase_suspend(struct amber_thread *t, const char *fn) {
  if (t->fase_locks == 0) return 0;
  if (t->fase_locks > 1)
    amber_fatal("%s() while this thread holds %d program locks, with AMBER_FASE=locks: the section stays open across the wait and "
                "the signalling thread could never enter one (deadlock). Wait holding only the condition's mutex, or run "
                "without AMBER_FASE=locks (docs/guide.md)",
                fn, t->fase_locks);
  commit_section(t, fn);
  t->fase_locks = 0;
  t->fase = AMBER_FASE_NONE;
  pthread_mutex_unlock(&section_lock);
  return 1;
}

void amber_fase_resume(struct amber_thread *t, pthread_mutex_t *mutex) {
  /* The wait re-acquired `mutex` first; waiting for the section lock while
   * holding it would invert the order, so release it and take both again
   * in order.  (A waiter may wake later than signalled: cond_wait allows
   * that.) */
  if (pthread_mutex_trylock(&section_lock) != 0) {
    pthread_mutex_unlock(mutex);
    pthread_mutex_lock(&section_lock);
    pthread_mutex_lock(mutex);
  }
  t->fase_locks = 1;
  t->fase = AMBER_FASE_HELD;
}
