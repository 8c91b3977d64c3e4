/* qsort, qsort_r and bsearch: on heap arrays by code amber never compiled
 * (and by instrumented code: libc's qsort is never instrumented), and on
 * any array inside a region (the pass leaves these three calls alone:
 * docs/pass.md), so that a region that sorts stays revocable.
 *
 * Inside a region (any memory, persistent or ordinary): the array is read
 * with the pass's __amber_loadn, one snapshot of the region's view
 * (persistent bytes through the engine, ordinary bytes under its isolation
 * of ordinary memory, captured for operational records), into a private
 * copy; the C library's qsort sorts the copy calling the comparator's
 * transactional clone (__amber_clone_of: a comparator amber never compiled
 * makes the region irrevocable, as an indirect call does); the bytes that
 * changed are stored back with __amber_storen, in the region's transaction
 * (undone when it aborts or calls amber_retry).  The copy lives on the
 * stack when small: frames below the region's own are private to it (no
 * word locks, no undo).
 *
 * A region's sort may be left in the middle, by siglongjmp: the comparator
 * (its clone) meets a conflict and the transaction restarts, or it calls
 * amber_retry or amber_cancel.  So inside a region the sort is this file's
 * merge sort (stable, as glibc's qsort is), not the C library's, whose
 * temporary array (malloc'd above 1 KiB) would be lost at each such jump,
 * and the copies it works on come from the transaction's scratch memory
 * (amber_interpose_scratch), freed when the transaction ends whichever way
 * it ends.  A crash (kill -9) mid-sort leaks nothing either: the copies are
 * volatile, gone with the process, and the array itself is only written by
 * the region's __amber_storen at the end, which recovery undoes with the
 * rest of the uncommitted region (test/crash/qsort_kill.c).
 *
 * Outside regions, on heap arrays: the volatile copy is read through the
 * engine in one snapshot, sorted with the caller's comparator, and the part
 * that changed is written back as one write, a transaction of its own (or
 * part of a lock-delimited section's).  So the comparator sees volatile
 * elements (it may be instrumented code, or not), and the sort is all or
 * nothing after a crash.  Outside regions on ordinary memory: the C
 * library's, in place.
 *
 * bsearch runs glibc's binary search itself and hands the comparator a
 * volatile copy of each probed element (read through the engine, or
 * __amber_loadn inside a region): the array is read only where the search
 * looks; the key is passed as given, and the result points into the
 * caller's array. */
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

/* The calling thread runs a region (not a lock-delimited section alone). */
static inline int wrap_region(void) { return __atomic_load_n(&__amber_heap_size, __ATOMIC_RELAXED) && amber_interpose_in_region(); }

/* Inside a region, the comparator called on the private copy: the
 * transactional clone of the caller's (or qsort_r's with its argument). */
struct clone_cmp {
  cmp_fn cmp;
  cmp_r_fn cmp_r;
  void *arg;
};
static int call_clone(const void *a, const void *b, void *c) {
  const struct clone_cmp *x = c;
  return x->cmp_r ? x->cmp_r(a, b, x->arg) : x->cmp(a, b);
}

/* [*lo, returned end) spans the bytes where the sorted copy differs from
 * the original: only those are written back, so an already sorted array
 * costs no write. */
static size_t changed_span(const char *orig, const char *sorted, size_t total, size_t *lo) {
  size_t l = 0, h = total;
  while (l < h && orig[l] == sorted[l]) l++;
  while (h > l && orig[h - 1] == sorted[h - 1]) h--;
  *lo = l;
  return h;
}

/* Stable merge sort of b[0, n) (elements of size bytes) with tmp (as
 * large) to merge into: glibc's msort, which qsort is for arrays it can
 * copy, so a consistent comparator gives the C library's order. */
static void merge_sort(char *b, size_t n, size_t size, char *tmp, const struct clone_cmp *x) {
  if (n <= 1) return;
  size_t n1 = n / 2, n2 = n - n1;
  char *b1 = b, *b2 = b + n1 * size, *t = tmp;
  merge_sort(b1, n1, size, tmp, x);
  merge_sort(b2, n2, size, tmp, x);
  while (n1 && n2) {
    if (call_clone(b1, b2, (void *)x) <= 0) {
      memcpy(t, b1, size);
      b1 += size;
      n1--;
    } else {
      memcpy(t, b2, size);
      b2 += size;
      n2--;
    }
    t += size;
  }
  if (n1) memcpy(t, b1, n1 * size);
  memcpy(b, tmp, (n - n2) * size); /* what is left of the second half is in place */
}

/* Private copies up to this size (all three together) live on the stack. */
#define STACK_COPY 12288

/* Inside a region: sorts base[0, n) (persistent or ordinary) as part of the
 * region's transaction, on copies the transaction frees if it is left
 * mid-sort (above). */
static void region_sort(const char *fn, void *base, size_t n, size_t size, cmp_fn cmp, cmp_r_fn cmp_r, void *arg) {
  size_t total = bytes(n, size);
  if (wrap_touches(base, total)) amber_interpose_check_usable(fn, base);
  struct clone_cmp x = {NULL, NULL, arg};
  if (cmp_r) x.cmp_r = (cmp_r_fn)__amber_clone_of((void *)cmp_r);
  else x.cmp = (cmp_fn)__amber_clone_of((void *)cmp);
  if (n < 2 || !size) return;
  if (!total) amber_wrap_nomem(fn, base, 0); /* n * size overflows */
  char small[STACK_COPY];
  char *orig = total <= sizeof small / 3 ? small : total <= SIZE_MAX / 3 ? amber_interpose_scratch(3 * total) : NULL;
  if (!orig) amber_wrap_nomem(fn, base, total);
  char *sorted = orig + total;
  __amber_loadn(orig, base, total);
  memcpy(sorted, orig, total);
  merge_sort(sorted, n, size, sorted + total, &x);
  size_t lo, hi = changed_span(orig, sorted, total, &lo);
  if (lo < hi) __amber_storen((char *)base + lo, sorted + lo, hi - lo);
  if (orig != small) amber_interpose_scratch_free(orig);
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
  size_t lo, hi = changed_span(orig, sorted, total, &lo);
  if (lo < hi) amber_wrap_write(fn, (char *)base + lo, sorted + lo, hi - lo);
  free(orig);
}

void qsort(void *base, size_t n, size_t size, cmp_fn cmp) {
  if (__builtin_expect(wrap_region(), 0)) {
    region_sort("qsort", base, n, size, cmp, NULL, NULL);
    return;
  }
  if (__builtin_expect(!wrap_touches(base, bytes(n, size)), 1)) {
    REAL(qsort)(base, n, size, cmp);
    return;
  }
  heap_sort("qsort", base, n, size, cmp, NULL, NULL);
}

void qsort_r(void *base, size_t n, size_t size, cmp_r_fn cmp, void *arg) {
  if (__builtin_expect(wrap_region(), 0)) {
    region_sort("qsort_r", base, n, size, NULL, cmp, arg);
    return;
  }
  if (__builtin_expect(!wrap_touches(base, bytes(n, size)), 1)) {
    REAL(qsort_r)(base, n, size, cmp, arg);
    return;
  }
  heap_sort("qsort_r", base, n, size, NULL, cmp, arg);
}

void *bsearch(const void *key, const void *base, size_t n, size_t size, cmp_fn cmp) {
  int region = wrap_region();
  if (__builtin_expect(!region && !wrap_touches(base, bytes(n, size)), 1)) return REAL(bsearch)(key, base, n, size, cmp);
  if (wrap_touches(base, bytes(n, size))) amber_interpose_check_usable("bsearch", base);
  if (region) cmp = (cmp_fn)__amber_clone_of((void *)cmp);
  char small[256];
  char *elem = size <= sizeof small ? small : malloc(size);
  if (!elem) amber_wrap_nomem("bsearch", base, size);
  void *found = NULL;
  size_t l = 0, u = n; /* glibc's probes, in glibc's order */
  while (l < u) {
    size_t idx = (l + u) / 2;
    const char *p = (const char *)base + idx * size;
    if (region) __amber_loadn(elem, p, size);
    else amber_wrap_read(elem, p, size);
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
