/* free and realloc called by code the pass did not instrument (or outside
 * regions): a persistent pointer is freed or resized in its own transaction;
 * anything else goes to the next definition (libc or the program's
 * allocator). */

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

#include "tx/alloc.h"
#include "base/diag.h"
#include "tx/tx.h"

extern void __libc_free(void *);
extern void *__libc_realloc(void *, size_t);

typedef void free_fn(void *);
typedef void *realloc_fn(void *, size_t);
static free_fn *next_free;
static realloc_fn *next_realloc;
static __thread int resolving; /* dlsym may itself allocate and free */

static free_fn *get_free(void) {
  if (__builtin_expect(next_free != NULL, 1)) return next_free;
  if (resolving) return __libc_free;
  resolving = 1;
  free_fn *f = (free_fn *)dlsym(RTLD_NEXT, "free");
  resolving = 0;
  if (!f || f == free) f = __libc_free; /* never call back into ourselves */
  __atomic_store_n(&next_free, f, __ATOMIC_RELEASE);
  return f;
}

static realloc_fn *get_realloc(void) {
  if (__builtin_expect(next_realloc != NULL, 1)) return next_realloc;
  if (resolving) return __libc_realloc;
  resolving = 1;
  realloc_fn *f = (realloc_fn *)dlsym(RTLD_NEXT, "realloc");
  resolving = 0;
  if (!f || f == realloc) f = __libc_realloc;
  __atomic_store_n(&next_realloc, f, __ATOMIC_RELEASE);
  return f;
}

static void pfree_fn(void *p) { amber_pfree(amber_thread(), p); }

void free(void *p) {
  if (p && amber_in_heap(p)) {
    amber_tx_run_internal(pfree_fn, p);
    return;
  }
  get_free()(p);
}

struct realloc_req {
  void *p;
  size_t n;
  void *result;
};

static void prealloc_fn(void *arg) {
  struct realloc_req *r = arg;
  r->result = __amber_realloc(r->p, r->n);
}

void *realloc(void *p, size_t n) {
  if (p && amber_in_heap(p)) {
    struct realloc_req r = {p, n, NULL};
    amber_tx_run_internal(prealloc_fn, &r);
    return r.result;
  }
  return get_realloc()(p, n);
}
