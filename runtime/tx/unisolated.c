/* The AMBER_UNISOLATED ranges.  Registered by module constructors, read by
 * every access to ordinary memory in a region: a sorted array, replaced
 * whole under a lock and published with a release store, never freed (a
 * reader may still hold the old one; modules are few). */
#include "unisolated.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"

struct range {
  uintptr_t lo, hi; /* [lo, hi) */
};
size_t amber_unisolated_n;
static struct range *ranges;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int amber_unisolated_find(uintptr_t a) {
  size_t n = __atomic_load_n(&amber_unisolated_n, __ATOMIC_ACQUIRE);
  const struct range *r = __atomic_load_n(&ranges, __ATOMIC_ACQUIRE);
  size_t lo = 0, hi = n;
  while (lo < hi) { /* the first range with hi > a */
    size_t mid = (lo + hi) / 2;
    if (r[mid].hi <= a) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && r[lo].lo <= a;
}

static int by_lo(const void *x, const void *y) {
  const struct range *a = x, *b = y;
  return a->lo < b->lo ? -1 : a->lo > b->lo;
}

void amber_unisolated_add(const void *const *addr, const size_t *size, size_t stride, size_t n) {
  pthread_mutex_lock(&lock);
  size_t old = amber_unisolated_n;
  struct range *r = malloc((old + n) * sizeof *r);
  if (!r) amber_fatal("out of memory for the AMBER_UNISOLATED registry (%zu ranges)", old + n);
  if (old) memcpy(r, ranges, old * sizeof *r);
  size_t k = old;
  for (size_t i = 0; i < n; i++) {
    uintptr_t lo = (uintptr_t)*(const void *const *)((const char *)addr + i * stride);
    size_t sz = *(const size_t *)((const char *)size + i * stride);
    if (sz) r[k++] = (struct range){lo, lo + sz};
  }
  qsort(r, k, sizeof *r, by_lo);
  /* The array before the count: a reader that sees the new count sees it. */
  __atomic_store_n(&ranges, r, __ATOMIC_RELEASE);
  __atomic_store_n(&amber_unisolated_n, k, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
}
