/* free and realloc called by code the pass did not instrument (or outside
 * regions): a persistent pointer is freed or resized in its own transaction;
 * anything else goes to the next definition (libc, a sanitizer's or the
 * program's allocator). */
#include <malloc.h>
#include <stddef.h>
#include <stdlib.h>

#include "wrap.h"

WRAP_REAL(free)
WRAP_REAL(realloc)

/* Until libamber's constructors have resolved the next definitions, which
 * allocator owns a pointer is unknown (glibc's, a sanitizer's, a preloaded
 * one), and looking it up here is not safe: these calls come from inside
 * dlsym itself (glibc's dlerror frees its message through us while a
 * sanitizer starts, before our constructors; a nested dlsym would free the
 * same message again), or from our own resolution.  So such a free is
 * dropped and such a realloc copies into a new block from the global malloc
 * (which libamber does not intercept, so it is the owner's): a few blocks
 * of start-up, never a wrong free. */
static inline __typeof__(free) *next_free(void) { return __atomic_load_n(&real_free, __ATOMIC_ACQUIRE); }
static inline __typeof__(realloc) *next_realloc(void) { return __atomic_load_n(&real_realloc, __ATOMIC_ACQUIRE); }

void free(void *p) {
  if (p && wrap_in_heap(p)) {
    amber_interpose_free(p);
    return;
  }
  __typeof__(free) *f = next_free();
  if (__builtin_expect(f != NULL, 1)) f(p);
}

void *realloc(void *p, size_t n) {
  if (p && wrap_in_heap(p)) return amber_interpose_realloc(p, n);
  __typeof__(realloc) *f = next_realloc();
  if (__builtin_expect(f != NULL, 1)) return f(p, n);
  void *q = malloc(n ? n : 1);
  if (q && p) {
    size_t old = malloc_usable_size(p);
    amber_wrap_plain_move(q, p, old < n ? old : n); /* memcpy might not be resolved either */
  }
  return q;
}
