/* Lock-delimited failure-atomic sections (AMBER_FASE=locks; docs/guide.md,
 * "Lock-delimited sections").  The interceptors of wrappers/locks.c call
 * these around the program's own lock operations; the section's transaction
 * is opened lazily by the transaction driver (tx.c, amber_tx_join_section). */
#ifndef AMBER_FASE_H
#define AMBER_FASE_H

#include <pthread.h>
#include <time.h>

struct amber_thread;

/* AMBER_FASE is `locks`: set once, at initialisation, before the heap
 * window is published. */
extern int amber_fase_locks;
static inline int amber_fase_on(void) { return __atomic_load_n(&amber_fase_locks, __ATOMIC_RELAXED); }
/* Parses AMBER_FASE (none or locks); fatal on anything else. */
void amber_fase_init(void);

/* Before the program acquires a lock (for writing): when it is the thread's
 * outermost, waits for the section lock (abstime: until then, NULL: no
 * limit).  Returns 1 when this is the outermost acquisition, 0 when nested,
 * or an error number (> 1 is never 1: ETIMEDOUT) when the section lock could
 * not be had before abstime; then the program's lock must not be tried. */
int amber_fase_enter(struct amber_thread *t, const struct timespec *abstime);
/* After it: `ok` says whether the program's lock was acquired. */
void amber_fase_entered(struct amber_thread *t, int outer, int ok);

/* Before the program releases a lock it holds for writing: at the
 * outermost one the section's transaction commits (durable) now, before
 * the lock is released.  Returns 1 for the outermost release, 0 for a
 * nested one, -1 when this thread holds no lock taken through the
 * interceptors (not ours: pass through). */
int amber_fase_leave(struct amber_thread *t);
/* After it: `ok` says whether the program's lock was released. */
void amber_fase_left(struct amber_thread *t, int outer, int ok);

/* pthread_cond_wait / timedwait on the mutex of the outermost section:
 * suspend ends the section (commit, section lock released) before the wait
 * and returns 1, or 0 when the thread holds no lock taken through the
 * interceptors (pass through); it is fatal while other locks are held (the
 * signaller could never enter a section).  resume, after the wait returned
 * with `mutex` held again, takes the section lock without inverting the
 * lock order (section lock, then program lock) and starts a new section. */
int amber_fase_suspend(struct amber_thread *t, const char *fn);
void amber_fase_resume(struct amber_thread *t, pthread_mutex_t *mutex);

#endif
