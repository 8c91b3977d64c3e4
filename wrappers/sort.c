/* qsort, qsort_r and bsearch on heap arrays, by code amber never compiled
 * (and by instrumented code: libc's qsort is never instrumented).
 *
 * qsort sorts a volatile copy, read through the engine in one snapshot,
 * with the C library's qsort and the caller's comparator, and writes the
 * part that changed back as one write: part of the running region's
 * transaction inside a region, a transaction of its own outside.  So the
 * comparator sees volatile elements (it may be instrumented code, or not),
 * and the sort is all or nothing after a crash.
 *
 * bsearch runs glibc's binary search itself and hands the comparator a
 * volatile copy of each probed element (read through the engine): the
 * array is read only where the search looks; the key is passed as given,
 * and the result points into the caller's array. */
#include <stdlib.h>
#include <string.h>

#include "wrap.h"

WRAP_REAL(qsort)
WRAP_REAL(qsort_r)
WRAP_REAL(bsearch)

typedef int (*cmp_fn)(const void *, const void *);
typedef int (*cmp_r_fn)(const void *, const void *, void *);

/* n elements of size bytes, or 0 when that overflows. */
static size_t bytes(size_t n, size_t size) {
  size_t t;
  return __builtin_mul_overflow(n, size, &t) ? 0 : t;
}

/* Sorts the heap array base[0, n) through a volatile copy. */
static void heap_sort(const char *fn, void *base, size_t n, size_t size, cmp_fn cmp, cmp_r_fn cmp_r, void *arg) {
  size_t total = bytes(n, size);
  amber_interpose_check_usable(fn, base);
  if (n < 2) return;
  char *orig = total <= SIZE_MAX / 2 ? malloc(2 * total) : NULL;
  if (!orig) amber_wrap_nomem(fn, base, total);
  char *sorted = orig + total;
  amber_wrap_read(orig, base, total);
  memcpy(sorted, orig, total);
  if (cmp_r) REAL(qsort_r)(sorted, n, size, cmp_r, arg);
  else REAL(qsort)(sorted, n, size, cmp);
  /* Only the bytes that moved are written: a sorted array costs no write. */
  size_t lo = 0, hi = total;
  while (lo < hi && orig[lo] == sorted[lo]) lo++;
  while (hi > lo && orig[hi - 1] == sorted[hi - 1]) hi--;
  if (lo < hi) amber_wrap_write(fn, (char *)base + lo, sorted + lo, hi - lo);
  free(orig);
}

void qsort(void *base, size_t n, size_t size, cmp_fn cmp) {
  if (__builtin_expect(!wrap_touches(base, bytes(n, size)), 1)) {
    REAL(qsort)(base, n, size, cmp);
    return;
  }
  heap_sort("qsort", base, n, size, cmp, NULL, NULL);
}

void qsort_r(void *base, size_t n, size_t size, cmp_r_fn cmp, void *arg) {
  if (__builtin_expect(!wrap_touches(base, bytes(n, size)), 1)) {
    REAL(qsort_r)(base, n, size, cmp, arg);
    return;
  }
  heap_sort("qsort_r", base, n, size, NULL, cmp, arg);
}

void *bsearch(const void *key, const void *base, size_t n, size_t size, cmp_fn cmp) {
  if (__builtin_expect(!wrap_touches(base, bytes(n, size)), 1)) return REAL(bsearch)(key, base, n, size, cmp);
  amber_interpose_check_usable("bsearch", base);
  char small[256];
  char *elem = size <= sizeof small ? small : malloc(size);
  if (!elem) amber_wrap_nomem("bsearch", base, size);
  void *found = NULL;
  size_t l = 0, u = n; /* glibc's probes, in glibc's order */
  while (l < u) {
    size_t idx = (l + u) / 2;
    const char *p = (const char *)base + idx * size;
    amber_wrap_read(elem, p, size);
    int c = cmp(key, elem);
    if (c < 0) {
      u = idx;
    } else if (c > 0) {
      l = idx + 1;
    } else {
      found = (void *)p;
      break;
    }
  }
  if (elem != small) free(elem);
  return found;
}
