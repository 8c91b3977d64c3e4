/* Lock-delimited failure-atomic sections (AMBER_FASE=locks; runtime/tx/fase.c
 * holds the model and its deadlock argument).  The program's mutexes and
 * rwlock write locks delimit sections: these interceptors count the locks a
 * thread holds, open a section at the outermost acquisition and end it
 * (commit, then release) at the outermost release.  A read lock is no
 * section, and its release must not end one, so the rwlocks a thread holds
 * for writing are remembered (RW_MAX of them at once).
 *
 * Without AMBER_FASE=locks every interceptor calls the real function at
 * once (one relaxed load).  Mutexes and rwlocks taken by other means
 * (pthread_mutex_clocklock, pthread_rwlock_clockwrlock, C11 mtx_*, spin
 * locks, libc's internal locks) delimit nothing. */
#include <errno.h>
#include <pthread.h>

#include "wrap.h"

WRAP_REAL(pthread_mutex_lock)
WRAP_REAL(pthread_mutex_trylock)
WRAP_REAL(pthread_mutex_timedlock)
WRAP_REAL(pthread_mutex_unlock)
WRAP_REAL(pthread_rwlock_wrlock)
WRAP_REAL(pthread_rwlock_trywrlock)
WRAP_REAL(pthread_rwlock_timedwrlock)
WRAP_REAL(pthread_rwlock_unlock)
WRAP_REAL(pthread_cond_wait)
WRAP_REAL(pthread_cond_timedwait)

/* ---- acquisitions: section lock (outermost), then the program's ---- */

/* `held` runs once the program's lock is held. */
#define ACQUIRE(call, abstime, held)                                           \
  do {                                                                         \
    struct amber_thread *t = amber_interpose_thread();                         \
    int outer = amber_fase_enter(t, (abstime));                                \
    if (outer > 1) return outer; /* the section lock timed out */             \
    int e = (call);                                                            \
    if (e == 0) held;                                                          \
    amber_fase_entered(t, outer, e == 0);                                      \
    return e;                                                                  \
  } while (0)

int pthread_mutex_lock(pthread_mutex_t *m) {
  amber_interpose_sync();
  if (!amber_fase_on()) return REAL(pthread_mutex_lock)(m);
  ACQUIRE(REAL(pthread_mutex_lock)(m), NULL, (void)0);
}

/* An outermost trylock waits for the section lock (the thread holds no
 * program lock, so the wait cannot deadlock; it lasts one section at most),
 * then tries the program's lock. */
int pthread_mutex_trylock(pthread_mutex_t *m) {
  amber_interpose_sync();
  if (!amber_fase_on()) return REAL(pthread_mutex_trylock)(m);
  ACQUIRE(REAL(pthread_mutex_trylock)(m), NULL, (void)0);
}

int pthread_mutex_timedlock(pthread_mutex_t *restrict m, const struct timespec *restrict abstime) {
  amber_interpose_sync();
  if (!amber_fase_on()) return REAL(pthread_mutex_timedlock)(m, abstime);
  ACQUIRE(REAL(pthread_mutex_timedlock)(m, abstime), abstime, (void)0);
}

/* ---- rwlocks held for writing, per thread ---- */

enum { RW_MAX = 16 };
static __thread pthread_rwlock_t *rw_held[RW_MAX];
static __thread int rw_n;

static void rw_push(pthread_rwlock_t *l) {
  if (rw_n == RW_MAX)
    amber_fatal("a thread holds more than %d rwlocks for writing at once, with AMBER_FASE=locks; wrappers/locks.c tracks at "
                "most %d (raise RW_MAX)",
                RW_MAX, RW_MAX);
  rw_held[rw_n++] = l;
}

/* This thread holds l for writing. */
static int rw_find(pthread_rwlock_t *l) {
  for (int i = rw_n; i-- > 0;)
    if (rw_held[i] == l) return 1;
  return 0;
}
static void rw_drop(pthread_rwlock_t *l) {
  for (int i = rw_n; i-- > 0;)
    if (rw_held[i] == l) {
      rw_held[i] = rw_held[--rw_n];
      return;
    }
}


int pthread_rwlock_wrlock(pthread_rwlock_t *l) {
  amber_interpose_sync();
  if (!amber_fase_on()) return REAL(pthread_rwlock_wrlock)(l);
  ACQUIRE(REAL(pthread_rwlock_wrlock)(l), NULL, rw_push(l));
}

int pthread_rwlock_trywrlock(pthread_rwlock_t *l) {
  amber_interpose_sync();
  if (!amber_fase_on()) return REAL(pthread_rwlock_trywrlock)(l);
  ACQUIRE(REAL(pthread_rwlock_trywrlock)(l), NULL, rw_push(l));
}

int pthread_rwlock_timedwrlock(pthread_rwlock_t *restrict l, const struct timespec *restrict abstime) {
  amber_interpose_sync();
  if (!amber_fase_on()) return REAL(pthread_rwlock_timedwrlock)(l, abstime);
  ACQUIRE(REAL(pthread_rwlock_timedwrlock)(l, abstime), abstime, rw_push(l));
}

/* ---- releases: commit (outermost), the program's release, section lock ---- */

int pthread_mutex_unlock(pthread_mutex_t *m) {
  amber_interpose_sync();
  if (!amber_fase_on()) return REAL(pthread_mutex_unlock)(m);
  struct amber_thread *t = amber_interpose_thread();
  int outer = amber_fase_leave(t);
  int e = REAL(pthread_mutex_unlock)(m);
  amber_fase_left(t, outer, e == 0);
  return e;
}

int pthread_rwlock_unlock(pthread_rwlock_t *l) {
  amber_interpose_sync();
  if (!amber_fase_on() || !rw_find(l)) return REAL(pthread_rwlock_unlock)(l); /* a read lock */
  struct amber_thread *t = amber_interpose_thread();
  int outer = amber_fase_leave(t);
  int e = REAL(pthread_rwlock_unlock)(l);
  if (e == 0) rw_drop(l);
  amber_fase_left(t, outer, e == 0);
  return e;
}

/* ---- condition variables: the wait ends the section, the wake-up starts one ---- */

int pthread_cond_wait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m) {
  amber_interpose_sync();
  if (!amber_fase_on()) return REAL(pthread_cond_wait)(c, m);
  struct amber_thread *t = amber_interpose_thread();
  int ours = amber_fase_suspend(t, "pthread_cond_wait");
  int e = REAL(pthread_cond_wait)(c, m);
  if (ours) amber_fase_resume(t, m);
  return e;
}

int pthread_cond_timedwait(pthread_cond_t *restrict c, pthread_mutex_t *restrict m, const struct timespec *restrict abstime) {
  amber_interpose_sync();
  if (!amber_fase_on()) return REAL(pthread_cond_timedwait)(c, m, abstime);
  struct amber_thread *t = amber_interpose_thread();
  int ours = amber_fase_suspend(t, "pthread_cond_timedwait");
  int e = REAL(pthread_cond_timedwait)(c, m, abstime);
  if (ours) amber_fase_resume(t, m); /* ETIMEDOUT too: the mutex is held again */
  return e;
}
