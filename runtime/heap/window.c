/* The process's heap window, its alias and its closed/forked state: set by
 * the process layer (init.c, wrappers/fork.c), read by every layer above
 * heap/ and by the pass's range checks. */
#include "window.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "base/diag.h"

uintptr_t __amber_heap_base;
uintptr_t __amber_heap_size;
intptr_t __amber_heap_delta;
struct amber_heap amber_the_heap;
int amber_heap_closed;
int amber_heap_forked;
int amber_heap_exiting;
static pthread_t exit_thread; /* written before amber_heap_exiting is set */

void amber_heap_exit_begins(void) {
  exit_thread = pthread_self();
  __atomic_store_n(&amber_heap_exiting, 1, __ATOMIC_SEQ_CST);
}

int amber_heap_forked_error(const char *did, const void *addr) {
#define FORKED "fork() in a process with an open amber heap: the child (pid %d) %s heap %s"
#define FIX ". A forked child must not use its parent's heap: exec (or _exit) in the child, or fork before the heap is opened (docs/wrappers.md)"
  if (addr) return amber_error(FORKED " memory at %p" FIX, (int)getpid(), did, amber_the_heap.path, addr);
  return amber_error(FORKED FIX, (int)getpid(), did, amber_the_heap.path);
#undef FORKED
#undef FIX
}

noreturn void amber_heap_forked_fatal(const char *did, const void *addr) {
  amber_heap_forked_error(did, addr);
  _exit(2);
}

/* exit() is closing the heap on another thread: this thread's transaction
 * must not start (the close waits for running ones only, and marks the heap
 * clean when they are done), and it must not end the process with an error
 * of its own.  The process ends when exit() is done.  (The exiting thread
 * itself, in a later exit handler, gets the error: waiting would hang.) */
static noreturn void wait_for_exit(void) {
  for (;;) pause();
}

void amber_heap_check_open_slow(void) {
  if (__builtin_expect(amber_heap_forked, 0)) amber_heap_forked_fatal("ran an AMBER region on", NULL);
  if (__builtin_expect(__atomic_load_n(&amber_heap_exiting, __ATOMIC_ACQUIRE), 0) && !pthread_equal(pthread_self(), exit_thread))
    wait_for_exit();
  if (__builtin_expect(amber_heap_closed, 0))
    amber_fatal("a region ran after amber_close() closed heap %s; close the heap only when the program is done with it",
                amber_the_heap.path);
}

noreturn void amber_heap_wait_closed(void) {
  struct timespec ms = {0, 1000000};
  while (!__atomic_load_n(&amber_heap_closed, __ATOMIC_ACQUIRE) && !__atomic_load_n(&amber_heap_exiting, __ATOMIC_ACQUIRE))
    nanosleep(&ms, NULL);
  amber_heap_check_open_slow();
  amber_fatal("a region started while amber_close() was closing heap %s; close the heap only when no other thread uses it",
              amber_the_heap.path);
}
