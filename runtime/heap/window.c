/* The process's heap window, its alias and its closed/forked state: set by
 * the process layer (init.c, wrappers/fork.c), read by every layer above
 * heap/ and by the pass's range checks. */
#include "window.h"

#include <unistd.h>

#include "base/diag.h"

uintptr_t __amber_heap_base;
uintptr_t __amber_heap_size;
intptr_t amber_heap_alias_delta;
struct amber_heap amber_the_heap;
int amber_heap_closed;
int amber_heap_forked;

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

void amber_heap_check_open(void) {
  if (__builtin_expect(amber_heap_forked, 0)) amber_heap_forked_fatal("ran an AMBER region on", NULL);
  if (__builtin_expect(amber_heap_closed, 0))
    amber_fatal("a region ran after amber_close() closed heap %s; close the heap only when the program is done with it",
                amber_the_heap.path);
}
