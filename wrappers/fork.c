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
 * exit status 2: through an interceptor or a region (runtime/init.c), or a
 * plain access (the fault handler of signals.c).
 *
 * Not intercepted: vfork and posix_spawn (the child shares the parent's
 * memory until it execs: nothing to protect), daemon() (its parent leaves
 * at once with _exit, so the child is simply the heap's only user). */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/diag.h"
#include "tx/tx.h"
#include "wrap.h"

WRAP_REAL(fork)
#if __GLIBC_PREREQ(2, 34)
WRAP_REAL(_Fork)
#endif

__attribute__((constructor(102))) static void resolve_fork(void) { (void)TRY_REAL(fork); }

static void in_child(void) {
  struct amber_heap *h = &amber_the_heap;
  amber_heap_forked = 1;
  __atomic_store_n(&amber_heap_closed, 1, __ATOMIC_RELEASE);
  if (h->data) mprotect(h->data, h->hdr.data_size, PROT_NONE);
  if (h->window) mprotect(h->window, h->hdr.data_size, PROT_NONE); /* readable with AMBER_STRICT=0 */
  if (h->meta) mprotect(h->meta, AMBER_META_SIZE, PROT_NONE);
  if (h->engine_area && h->hdr.engine_size) mprotect(h->engine_area, h->hdr.engine_size, PROT_NONE);
  if (h->fd >= 0) {
    close(h->fd); /* the parent's descriptor keeps the lock */
    h->fd = -1;
  }
  amber_wrap_signals_forked();
}

static int within(const void *a, const void *base, uint64_t n) {
  return base && (uintptr_t)a - (uintptr_t)base < n;
}

int amber_wrap_fork_fault(int sig, void *addr) {
  (void)sig;
  const struct amber_heap *h = &amber_the_heap;
  if (!within(addr, h->data, h->hdr.data_size) && !within(addr, h->window, h->hdr.data_size) &&
      !within(addr, h->meta, AMBER_META_SIZE) &&
      !within(addr, h->engine_area, h->hdr.engine_size))
    return 0;
  amber_error("fork() in a process with an open amber heap: the child (pid %d) touched heap %s memory at %p. A forked child must "
              "not use its parent's heap: exec (or _exit) in the child, or fork before the heap is opened (docs/wrappers.md)",
              (int)getpid(), h->path, addr);
  return 1;
}

/* The heap is mapped in this process (and it is not itself such a child). */
static int heap_mapped(void) { return __atomic_load_n(&amber_tx_engine, __ATOMIC_ACQUIRE) && !amber_heap_forked && amber_the_heap.data; }

pid_t fork(void) {
  if (!heap_mapped()) return REAL(fork)();
  pid_t p = REAL(fork)();
  if (p == 0) in_child();
  return p;
}

#if __GLIBC_PREREQ(2, 34)
pid_t _Fork(void) {
  if (!heap_mapped()) return REAL(_Fork)();
  pid_t p = REAL(_Fork)();
  if (p == 0) in_child();
  return p;
}
#endif
