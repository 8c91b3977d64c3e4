/* Synchronisation points that are nothing else to amber: the calling
 * thread's stray batch (its stores outside regions, runtime/tx/batch.c)
 * commits before the real call, so that what it stored is durable and
 * visible to the threads the call releases, and so that no engine lock is
 * held while the call may block.  The other points (locks, unlocks and
 * condition waits, pthread_create, I/O, fork) are in locks.c, threads.c,
 * io.c, printf.c and fork.c; exit and thread end in the runtime.  Each is
 * one relaxed load when no thread has a batch open. */
#include <pthread.h>
#include <semaphore.h>

#include "wrap.h"

WRAP_REAL(pthread_join)
WRAP_REAL(pthread_cond_signal)
WRAP_REAL(pthread_cond_broadcast)
WRAP_REAL(pthread_rwlock_rdlock)
WRAP_REAL(pthread_barrier_wait)
WRAP_REAL(sem_post)
WRAP_REAL(sem_wait)

int pthread_join(pthread_t th, void **ret) {
  amber_interpose_sync();
  return REAL(pthread_join)(th, ret);
}

int pthread_cond_signal(pthread_cond_t *c) {
  amber_interpose_sync();
  return REAL(pthread_cond_signal)(c);
}

int pthread_cond_broadcast(pthread_cond_t *c) {
  amber_interpose_sync();
  return REAL(pthread_cond_broadcast)(c);
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l) {
  amber_interpose_sync();
  return REAL(pthread_rwlock_rdlock)(l);
}

int pthread_barrier_wait(pthread_barrier_t *b) {
  amber_interpose_sync();
  return REAL(pthread_barrier_wait)(b);
}

int sem_post(sem_t *s) {
  amber_interpose_sync();
  return REAL(sem_post)(s);
}

int sem_wait(sem_t *s) {
  amber_interpose_sync();
  return REAL(sem_wait)(s);
}
