/* Copies and fills that touch the heap, by code amber never compiled:
 * stpcpy stpncpy mempcpy (and their __ aliases) memccpy bcopy bzero
 * explicit_bzero memfrob strfry strerror_r, and the fortified forms
 * __stpcpy_chk __stpncpy_chk __mempcpy_chk __strncat_chk
 * __explicit_bzero_chk.  A copy into the heap is one write (a transaction
 * of its own, or part of the running region's), its source read in the
 * same transaction; a copy from the heap into volatile memory reads the
 * source through the engine, in one snapshot. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "glibc.h"
#include "strscan.h"
#include "wrap.h"

WRAP_REAL(stpcpy)
WRAP_REAL(__stpcpy)
WRAP_REAL(stpncpy)
WRAP_REAL(__stpncpy)
WRAP_REAL(mempcpy)
WRAP_REAL(__mempcpy)
WRAP_REAL(memccpy)
WRAP_REAL(bcopy)
WRAP_REAL(bzero)
WRAP_REAL(explicit_bzero)
WRAP_REAL(memfrob)
WRAP_REAL(strfry)
WRAP_REAL(strerror_r)
WRAP_REAL(__xpg_strerror_r)
WRAP_REAL(__stpcpy_chk)
WRAP_REAL(__stpncpy_chk)
WRAP_REAL(__mempcpy_chk)
WRAP_REAL(__strncat_chk)
WRAP_REAL(__explicit_bzero_chk)

/* ---- one copy, run in a write transaction when dst touches the heap
 * (writes through __amber_*), else in a read transaction (dst volatile) ---- */

enum op { STPCPY, STPNCPY, MEMPCPY, MEMCCPY, NCAT, FILL };

struct copy_req {
  enum op op;
  char *dst;
  const char *src;
  size_t n;
  int c;
  int into_heap;
  void *ret;
};

static void put(struct copy_req *r, char *d, const char *s, size_t k) {
  if (!k) return;
  if (r->into_heap) __amber_memmove(d, s, k);
  else amber_interpose_load(d, s, k);
}

static void fill(struct copy_req *r, char *d, int c, size_t k) {
  if (!k) return;
  if (r->into_heap) __amber_memset(d, c, k);
  else memset(d, c, k);
}

/* The offset of the first c in s[0, n), or n. */
static size_t find(const char *s, int c, size_t n) {
  char buf[WRAP_PIECE];
  for (size_t i = 0; i < n; i += WRAP_PIECE) {
    size_t k = n - i < WRAP_PIECE ? n - i : WRAP_PIECE;
    amber_interpose_load(buf, s + i, k);
    const char *f = memchr(buf, c, k);
    if (f) return i + (size_t)(f - buf);
  }
  return n;
}

static void copy_fn(void *arg) {
  struct copy_req *r = arg;
  switch (r->op) {
  case STPCPY: {
    size_t len = amber_interpose_strnlen_tx(r->src, SIZE_MAX);
    put(r, r->dst, r->src, len + 1);
    r->ret = r->dst + len;
    break;
  }
  case STPNCPY: {
    size_t len = amber_interpose_strnlen_tx(r->src, r->n);
    put(r, r->dst, r->src, len);
    fill(r, r->dst + len, 0, r->n - len);
    r->ret = r->dst + len;
    break;
  }
  case MEMPCPY:
    put(r, r->dst, r->src, r->n);
    r->ret = r->dst + r->n;
    break;
  case MEMCCPY: {
    size_t k = find(r->src, r->c, r->n);
    put(r, r->dst, r->src, k < r->n ? k + 1 : r->n);
    r->ret = k < r->n ? r->dst + k + 1 : NULL;
    break;
  }
  case NCAT: {
    char *d = r->dst + amber_interpose_strnlen_tx(r->dst, SIZE_MAX);
    size_t len = amber_interpose_strnlen_tx(r->src, r->n);
    put(r, d, r->src, len);
    fill(r, d + len, 0, 1);
    r->ret = r->dst;
    break;
  }
  case FILL:
    fill(r, r->dst, r->c, r->n);
    r->ret = r->dst;
    break;
  }
}

/* `into_heap`: whether dst touches the heap (each op knows its extent). */
static void *heap_copy(const char *fn, enum op op, void *dst, const void *src, size_t n, int c, int into_heap) {
  struct copy_req r = {op, dst, src, n, c, into_heap, NULL};
  if (into_heap) {
    amber_interpose_write_tx(fn, dst, copy_fn, &r);
  } else {
    amber_interpose_check_usable(fn, src);
    amber_interpose_read_tx(copy_fn, &r);
  }
  return r.ret;
}

/* strnlen of a string anywhere, for the fortified checks. */
static size_t any_len(const char *fn, const char *s, size_t max) {
  if (!wrap_in_heap(s)) return strnlen(s, max);
  char *copy = amber_wrap_strndup(s, max, NULL);
  if (!copy) amber_wrap_nomem(fn, s, 0);
  size_t n = strlen(copy);
  free(copy);
  return n;
}

#define STR2(d, s) __builtin_expect(wrap_in_heap(d) || wrap_in_heap(s), 0)
#define MEM2(d, s, n) __builtin_expect(wrap_touches(d, n) || wrap_touches(s, n), 0)

char *stpcpy(char *dst, const char *src) {
  if (!STR2(dst, src)) return REAL(stpcpy)(dst, src);
  return heap_copy("stpcpy", STPCPY, dst, src, 0, 0, wrap_in_heap(dst));
}

char *__stpcpy(char *dst, const char *src) {
  if (!STR2(dst, src)) return REAL(__stpcpy)(dst, src);
  return heap_copy("stpcpy", STPCPY, dst, src, 0, 0, wrap_in_heap(dst));
}

char *stpncpy(char *dst, const char *src, size_t n) {
  if (!__builtin_expect(wrap_touches(dst, n) || wrap_in_heap(src), 0)) return REAL(stpncpy)(dst, src, n);
  return heap_copy("stpncpy", STPNCPY, dst, src, n, 0, wrap_touches(dst, n));
}

char *__stpncpy(char *dst, const char *src, size_t n) {
  if (!__builtin_expect(wrap_touches(dst, n) || wrap_in_heap(src), 0)) return REAL(__stpncpy)(dst, src, n);
  return heap_copy("stpncpy", STPNCPY, dst, src, n, 0, wrap_touches(dst, n));
}

void *mempcpy(void *dst, const void *src, size_t n) {
  if (!MEM2(dst, src, n)) return REAL(mempcpy)(dst, src, n);
  return heap_copy("mempcpy", MEMPCPY, dst, src, n, 0, wrap_touches(dst, n));
}

void *__mempcpy(void *dst, const void *src, size_t n) {
  if (!MEM2(dst, src, n)) return REAL(__mempcpy)(dst, src, n);
  return heap_copy("mempcpy", MEMPCPY, dst, src, n, 0, wrap_touches(dst, n));
}

void *memccpy(void *dst, const void *src, int c, size_t n) {
  if (!MEM2(dst, src, n)) return REAL(memccpy)(dst, src, c, n);
  return heap_copy("memccpy", MEMCCPY, dst, src, n, (unsigned char)c, wrap_touches(dst, n));
}

void bcopy(const void *src, void *dst, size_t n) {
  if (!MEM2(dst, src, n)) {
    REAL(bcopy)(src, dst, n);
    return;
  }
  heap_copy("bcopy", MEMPCPY, dst, src, n, 0, wrap_touches(dst, n));
}

void bzero(void *dst, size_t n) {
  if (__builtin_expect(!wrap_touches(dst, n), 1)) {
    REAL(bzero)(dst, n);
    return;
  }
  heap_copy("bzero", FILL, dst, NULL, n, 0, 1);
}

/* In the heap the bytes are cleared by a transaction like any store: the
 * C library's promise (not optimised away) holds, the old bytes may remain
 * in the engine's logs until they are reclaimed. */
void explicit_bzero(void *dst, size_t n) {
  if (__builtin_expect(!wrap_touches(dst, n), 1)) {
    REAL(explicit_bzero)(dst, n);
    return;
  }
  heap_copy("explicit_bzero", FILL, dst, NULL, n, 0, 1);
}

/* ---- in place: copied out, changed by the C library, written back ---- */

void *memfrob(void *s, size_t n) {
  if (__builtin_expect(!wrap_touches(s, n), 1)) return REAL(memfrob)(s, n);
  amber_interpose_check_usable("memfrob", s);
  char *tmp = malloc(n);
  if (!tmp) amber_wrap_nomem("memfrob", s, n);
  amber_wrap_read(tmp, s, n);
  REAL(memfrob)(tmp, n);
  amber_wrap_write("memfrob", s, tmp, n);
  free(tmp);
  return s;
}

char *strfry(char *s) {
  if (__builtin_expect(!wrap_in_heap(s), 1)) return REAL(strfry)(s);
  amber_interpose_check_usable("strfry", s);
  size_t len;
  char *tmp = amber_wrap_strndup(s, SIZE_MAX, &len);
  if (!tmp) amber_wrap_nomem("strfry", s, 0);
  REAL(strfry)(tmp);
  amber_wrap_write("strfry", s, tmp, len);
  free(tmp);
  return s;
}

/* ---- strerror_r into a heap buffer: formed in volatile memory, then one
 * write of the message (as much as the C library put in buf) ---- */

char *strerror_r(int err, char *buf, size_t n) {
  if (__builtin_expect(!wrap_touches(buf, n), 1)) return REAL(strerror_r)(err, buf, n);
  char *tmp = malloc(n);
  if (!tmp) amber_wrap_nomem("strerror_r", buf, n);
  char *r = REAL(strerror_r)(err, tmp, n);
  if (r == tmp) {
    amber_wrap_write("strerror_r", buf, tmp, strnlen(tmp, n - 1) + 1);
    r = buf;
  }
  free(tmp);
  return r;
}

int __xpg_strerror_r(int err, char *buf, size_t n) {
  if (__builtin_expect(!wrap_touches(buf, n), 1)) return REAL(__xpg_strerror_r)(err, buf, n);
  char *tmp = malloc(n);
  if (!tmp) amber_wrap_nomem("strerror_r", buf, n);
  int rc = REAL(__xpg_strerror_r)(err, tmp, n);
  amber_wrap_write("strerror_r", buf, tmp, strnlen(tmp, n - 1) + 1);
  free(tmp);
  return rc;
}

/* ---- _FORTIFY_SOURCE: glibc's size checks, then the same copies ---- */

char *__stpcpy_chk(char *dst, const char *src, size_t dstlen) {
  if (!STR2(dst, src)) return REAL(__stpcpy_chk)(dst, src, dstlen);
  if (any_len("stpcpy", src, dstlen) >= dstlen) __chk_fail();
  return heap_copy("stpcpy", STPCPY, dst, src, 0, 0, wrap_in_heap(dst));
}

char *__stpncpy_chk(char *dst, const char *src, size_t n, size_t dstlen) {
  if (!__builtin_expect(wrap_touches(dst, n) || wrap_in_heap(src), 0)) return REAL(__stpncpy_chk)(dst, src, n, dstlen);
  if (dstlen < n) __chk_fail();
  return heap_copy("stpncpy", STPNCPY, dst, src, n, 0, wrap_touches(dst, n));
}

void *__mempcpy_chk(void *dst, const void *src, size_t n, size_t dstlen) {
  if (!MEM2(dst, src, n)) return REAL(__mempcpy_chk)(dst, src, n, dstlen);
  if (dstlen < n) __chk_fail();
  return heap_copy("mempcpy", MEMPCPY, dst, src, n, 0, wrap_touches(dst, n));
}

char *__strncat_chk(char *dst, const char *src, size_t n, size_t dstlen) {
  if (!STR2(dst, src)) return REAL(__strncat_chk)(dst, src, n, dstlen);
  size_t dl = any_len("strncat", dst, dstlen), sl = any_len("strncat", src, n);
  if (dl >= dstlen || sl >= dstlen - dl) __chk_fail();
  return heap_copy("strncat", NCAT, dst, src, n, 0, wrap_in_heap(dst));
}

void __explicit_bzero_chk(void *dst, size_t n, size_t dstlen) {
  if (__builtin_expect(!wrap_touches(dst, n), 1)) {
    REAL(__explicit_bzero_chk)(dst, n, dstlen);
    return;
  }
  if (dstlen < n) __chk_fail();
  heap_copy("explicit_bzero", FILL, dst, NULL, n, 0, 1);
}
