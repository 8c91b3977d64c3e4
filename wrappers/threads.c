/* Thread life cycle.  A thread gets its amber state lazily, on its first
 * amber call (runtime/tx/thread.c), so threads that never touch the heap cost
 * nothing.  A thread created through pthread_create hands its state back
 * (the engine's per-thread logs first: thread_fini) as soon as its start
 * routine returns or it calls pthread_exit, before its thread-local
 * destructors run and before pthread_join returns; a state handed back is
 * reused by the next new thread, so the thread table holds as many states
 * as threads ever ran amber code at once.  The thread-exit key of
 * runtime/tx/thread.c stays the fallback (cancelled threads, threads created
 * before the heap opened, amber calls from later destructors). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "wrap.h"

WRAP_REAL(pthread_create)
WRAP_REAL(pthread_exit)

struct start {
  void *(*fn)(void *);
  void *arg;
};

static void *trampoline(void *p) {
  struct start s = *(struct start *)p;
  free(p);
  void *r = s.fn(s.arg);
  amber_thread_retire();
  return r;
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
  amber_interpose_sync();
  /* Before the heap opens: unchanged (the thread-exit key covers them). */
  if (!amber_interpose_ready()) return REAL(pthread_create)(th, attr, fn, arg);
  struct start *s = malloc(sizeof *s);
  if (!s) return EAGAIN;
  s->fn = fn;
  s->arg = arg;
  int e = REAL(pthread_create)(th, attr, trampoline, s);
  if (e) free(s);
  return e;
}

void pthread_exit(void *r) {
  amber_thread_retire(); /* nothing when the thread has no state */
  REAL(pthread_exit)(r);
  __builtin_unreachable();
}
