/* fork() in a process that has a heap open.
 *
 * The child shares the heap file's pages with its parent but none of the
 * runtime's DRAM state that keeps them consistent (locks, versions, logs),
 * and one heap is open in one process at a time.  So the child may not use
 * the heap: in the child the heap's mappings become inaccessible and the
 * runtime counts as closed (no statistics, no clean close at its exit, no
 * write-back).  A child that calls exec (or _exit, or exits without
 * touching the heap) is fine: exec drops the mappings, and the heap file's
 * descriptor is close-on-exec (closed in the child right away anyway, so
 * it never holds the heap's lock).  A child that touches the heap stops
 * with "amber: error: fork() in a process with an open amber heap ..." and
 * exit status 2: through an interceptor or a region (runtime/heap/
 * window.c), or a plain access (the fault handler of signals.c).  The
 * heap's side of all this is runtime/interpose.c's (amber_interpose_forked,
 * amber_interpose_heap_contains).
 *
 * Not intercepted: vfork and posix_spawn (the child shares the parent's
 * memory until it execs: nothing to protect), daemon() (its parent leaves
 * at once with _exit, so the child is simply the heap's only user). */
#include <unistd.h>

#include "wrap.h"

WRAP_REAL(fork)
#if __GLIBC_PREREQ(2, 34)
WRAP_REAL(_Fork)
#endif

static void in_child(void) {
  amber_interpose_forked();
  amber_wrap_signals_forked();
}

int amber_wrap_fork_fault(int sig, void *addr) {
  (void)sig;
  if (!amber_interpose_heap_contains(addr)) return 0;
  amber_heap_forked_error("touched", addr);
  return 1;
}

/* Pass through unless the heap is mapped in this process (and it is not
 * itself such a child). */
pid_t fork(void) {
  amber_interpose_sync(); /* the parent's stores outside regions commit first */
  if (!amber_interpose_heap_mapped()) return REAL(fork)();
  pid_t p = REAL(fork)();
  if (p == 0) in_child();
  return p;
}

#if __GLIBC_PREREQ(2, 34)
pid_t _Fork(void) {
  amber_interpose_sync();
  if (!amber_interpose_heap_mapped()) return REAL(_Fork)();
  pid_t p = REAL(_Fork)();
  if (p == 0) in_child();
  return p;
}
#endif
