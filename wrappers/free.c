/* free and realloc called by code the pass did not instrument (or outside
 * regions): a persistent pointer is freed or resized in its own transaction;
 * anything else goes to the next definition (libc or the program's
 * allocator). */
#include <stddef.h>
#include <stdlib.h>

#include "wrap.h"

/* While this thread is inside dlsym (which may allocate and free), the
 * next definitions are not known yet: glibc's own serve. */
extern void __libc_free(void *);
extern void *__libc_realloc(void *, size_t);

WRAP_REAL(free)
WRAP_REAL(realloc)

void free(void *p) {
  if (p && wrap_in_heap(p)) {
    amber_interpose_free(p);
    return;
  }
  __typeof__(free) *f = TRY_REAL(free);
  (f ? f : __libc_free)(p);
}

void *realloc(void *p, size_t n) {
  if (p && wrap_in_heap(p)) return amber_interpose_realloc(p, n);
  __typeof__(realloc) *f = TRY_REAL(realloc);
  return (f ? f : __libc_realloc)(p, n);
}
