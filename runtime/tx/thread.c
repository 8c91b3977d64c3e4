/* Per-thread runtime state: one struct amber_thread per thread running
 * amber code, created on its first call, handed back when it ends and
 * reused by the next new thread. */
#include "tx.h"

#include <pthread.h>
#include <stdlib.h>

#include "alloc.h"
#include "base/diag.h"

__thread struct amber_thread *amber_self __attribute__((tls_model("initial-exec")));
/* Invariant: a state joins this list once, at its head, and never leaves
 * it (exited states are reused in place). */
static struct amber_thread *all_threads;
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t nthreads;

uint32_t amber_thread_states(void) { return __atomic_load_n(&nthreads, __ATOMIC_ACQUIRE); }

struct amber_thread *amber_threads(void) {
  return __atomic_load_n(&all_threads, __ATOMIC_ACQUIRE);
}

/* Thread states are recycled: a thread that exits leaves its state (its
 * counters, its grown logs) for the next new thread, so a program that
 * creates threads in a loop holds as many states as it ever ran threads at
 * once.  Statistics stay exact: counters only ever add up. */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void thread_exit(void *arg) {
  struct amber_thread *t = arg;
  if (t->depth > 0)
    amber_fatal("a thread exited inside the AMBER region %s; the region never commits and its locks would stay held. "
                "Leave the region before the thread ends",
                t->desc && t->desc->name ? t->desc->name : "(runtime)");
  /* Its stores outside regions commit with its end (tx/batch.c). */
  if (t->batch && !amber_heap_closed) amber_tx_batch_commit(t);
  if (amber_tx_engine && amber_tx_engine->thread_fini && !amber_heap_closed) amber_tx_engine->thread_fini(t);
  amber_self = NULL;
  __atomic_store_n(&t->exited, 1, __ATOMIC_RELEASE);
}

void amber_thread_retire(void) {
  struct amber_thread *t = amber_self;
  if (!t) return;
  pthread_setspecific(exit_key, NULL); /* the key's destructor has nothing left to do */
  thread_exit(t);
}

static void make_exit_key(void) {
  if (pthread_key_create(&exit_key, thread_exit) != 0) amber_fatal("cannot create a thread-exit key");
}

static struct amber_thread *reuse_exited(void) {
  for (struct amber_thread *t = amber_threads(); t; t = t->next_thread) {
    int one = 1;
    if (__atomic_load_n(&t->exited, __ATOMIC_ACQUIRE) &&
        __atomic_compare_exchange_n(&t->exited, &one, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
      return t;
  }
  return NULL;
}

struct amber_thread *amber_thread_slow(void) {
  pthread_once(&exit_key_once, make_exit_key);
  struct amber_thread *t = reuse_exited();
  int fresh = t == NULL;
  if (fresh) t = calloc(1, sizeof *t);
  if (!t) amber_fatal("out of memory for thread state");
  t->depth = 0;
  t->desc = NULL;
  t->what = NULL;
  t->fase = t->fase_locks = 0; /* a reused state holds no program lock */
  /* Relaxed atomics: the pointer check reads other threads' bounds (tx/ptrcheck.c). */
  __atomic_store_n(&t->stack_lo, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&t->stack_hi, 0, __ATOMIC_RELAXED);
  pthread_attr_t attr;
  void *lo;
  size_t sz;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    if (pthread_attr_getstack(&attr, &lo, &sz) == 0) {
      __atomic_store_n(&t->stack_lo, (uintptr_t)lo, __ATOMIC_RELAXED);
      __atomic_store_n(&t->stack_hi, (uintptr_t)lo + sz, __ATOMIC_RELAXED);
    }
    pthread_attr_destroy(&attr);
  }
  if (fresh) {
    pthread_mutex_lock(&threads_lock);
    t->index = nthreads++;
    t->next_thread = all_threads;
    __atomic_store_n(&all_threads, t, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&threads_lock);
    t->arena = t->index % AMBER_NARENAS;
  }
  amber_self = t;
  pthread_setspecific(exit_key, t);
  return t;
}
