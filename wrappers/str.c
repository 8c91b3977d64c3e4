/* str* called by code amber never compiled: a string written into the heap
 * is one transaction; a heap string read while the engine keeps committed
 * versions outside the data area (mvcc) is read through the engine, all of
 * one call in one snapshot. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strscan.h"
#include "wrap.h"

WRAP_REAL(strlen)
WRAP_REAL(strnlen)
WRAP_REAL(strcmp)
WRAP_REAL(strncmp)
WRAP_REAL(strchr)
WRAP_REAL(strrchr)
WRAP_REAL(strcpy)
WRAP_REAL(strncpy)
WRAP_REAL(strcat)
WRAP_REAL(strncat)
WRAP_REAL(strdup)
WRAP_REAL(strndup)
WRAP_REAL(__strcpy_chk)
WRAP_REAL(__strncpy_chk)
WRAP_REAL(__strcat_chk)

/* This string is in the heap: read it through amber_interpose_load. */
static inline int heap_read(const void *s) { return __builtin_expect(wrap_in_heap(s), 0); }

struct str_req {
  const char *a, *b;
  char *dst;
  size_t n;
  int c, result;
  const char *found;
};

static void cmp_fn(void *arg) {
  struct str_req *r = arg;
  struct wrap_cursor x = {.p = (const unsigned char *)r->a}, y = {.p = (const unsigned char *)r->b};
  r->result = 0;
  for (size_t i = 0; i < r->n; i++) {
    unsigned char u = wrap_next_byte(&x), v = wrap_next_byte(&y);
    if (u != v) {
      r->result = (int)u - (int)v;
      return;
    }
    if (!u) return;
  }
}

static int heap_cmp(const char *fn, const char *a, const char *b, size_t n) {
  amber_interpose_check_usable(fn, wrap_in_heap(a) ? a : b);
  struct str_req r = {.a = a, .b = b, .n = n};
  amber_interpose_read_tx(cmp_fn, &r);
  return r.result;
}

static void chr_fn(void *arg) {
  struct str_req *r = arg;
  struct wrap_cursor x = {.p = (const unsigned char *)r->a};
  r->found = NULL;
  for (size_t i = 0;; i++) {
    unsigned char u = wrap_next_byte(&x);
    if (u == (unsigned char)r->c) {
      r->found = r->a + i;
      if (!r->n) return; /* strchr: the first */
    }
    if (!u) return;
  }
}

static char *heap_chr(const char *fn, const char *s, int c, int last) {
  amber_interpose_check_usable(fn, s);
  struct str_req r = {.a = s, .c = c, .n = (size_t)last};
  amber_interpose_read_tx(chr_fn, &r);
  return (char *)r.found;
}

struct len_req {
  const char *s;
  size_t max, len;
};

static void len_fn(void *arg) {
  struct len_req *r = arg;
  r->len = amber_interpose_strnlen_tx(r->s, r->max);
}

static size_t heap_len(const char *fn, const char *s, size_t max) {
  amber_interpose_check_usable(fn, s);
  struct len_req r = {s, max, 0};
  amber_interpose_read_tx(len_fn, &r);
  return r.len;
}

/* strnlen of any string, for the fortified checks. */
static size_t any_len(const char *fn, const char *s, size_t max) {
  return heap_read(s) ? heap_len(fn, s, max) : REAL(strnlen)(s, max);
}

/* ---- readers ---- */

size_t strlen(const char *s) {
  if (!heap_read(s)) return REAL(strlen)(s);
  return heap_len("strlen", s, SIZE_MAX);
}

size_t strnlen(const char *s, size_t max) {
  if (!heap_read(s)) return REAL(strnlen)(s, max);
  return heap_len("strnlen", s, max);
}

int strcmp(const char *a, const char *b) {
  if ((!heap_read(a) && !heap_read(b))) return REAL(strcmp)(a, b);
  return heap_cmp("strcmp", a, b, SIZE_MAX);
}

int strncmp(const char *a, const char *b, size_t n) {
  if ((!heap_read(a) && !heap_read(b))) return REAL(strncmp)(a, b, n);
  return heap_cmp("strncmp", a, b, n);
}

char *strchr(const char *s, int c) {
  if (!heap_read(s)) return REAL(strchr)(s, c);
  return heap_chr("strchr", s, c, 0);
}

char *strrchr(const char *s, int c) {
  if (!heap_read(s)) return REAL(strrchr)(s, c);
  return heap_chr("strrchr", s, c, 1);
}

/* Inside a region, a persistent copy (the allocator family: alloc.c). */
char *strdup(const char *s) {
  if (__builtin_expect(wrap_persistent_call(__builtin_return_address(0)), 0)) return amber_interpose_pstrndup(s, SIZE_MAX);
  if (!heap_read(s)) return REAL(strdup)(s);
  amber_interpose_check_usable("strdup", s);
  return amber_wrap_strndup(s, SIZE_MAX, NULL); /* volatile, as libc's */
}

char *strndup(const char *s, size_t n) {
  if (__builtin_expect(wrap_persistent_call(__builtin_return_address(0)), 0)) return amber_interpose_pstrndup(s, n);
  if (!heap_read(s)) return REAL(strndup)(s, n);
  amber_interpose_check_usable("strndup", s);
  return amber_wrap_strndup(s, n, NULL);
}

/* ---- writers: into the heap, one transaction; from the heap into
 * volatile memory, one snapshot ---- */

enum { CPY, NCPY, CAT, NCAT };

static void write_fn(void *arg) {
  struct str_req *r = arg;
  switch (r->c) {
  case CPY: __amber_strcpy(r->dst, r->a); break;
  case NCPY: __amber_strncpy(r->dst, r->a, r->n); break;
  case CAT: __amber_strcat(r->dst, r->a); break;
  case NCAT: __amber_strncat(r->dst, r->a, r->n); break;
  }
}

/* dst is volatile, src in the heap: the reads go through the engine. */
static void read_fn(void *arg) {
  struct str_req *r = arg;
  char *d = r->dst;
  if (r->c == CAT || r->c == NCAT) d += REAL(strlen)(d);
  size_t max = r->c == NCPY || r->c == NCAT ? r->n : SIZE_MAX;
  size_t len = amber_interpose_strnlen_tx(r->a, max);
  amber_interpose_load(d, r->a, len);
  if (r->c == NCPY) memset(d + len, 0, r->n - len);
  else d[len] = 0;
}

static char *heap_str(const char *fn, int op, char *dst, const char *src, size_t n) {
  struct str_req r = {.a = src, .dst = dst, .n = n, .c = op};
  int into = op == NCPY ? wrap_touches(dst, n) : wrap_in_heap(dst);
  if (into) {
    amber_interpose_write_tx(fn, dst, write_fn, &r);
  } else {
    amber_interpose_check_usable(fn, src);
    amber_interpose_read_tx(read_fn, &r);
  }
  return dst;
}

char *strcpy(char *dst, const char *src) {
  if ((!wrap_in_heap(dst) && !heap_read(src))) return REAL(strcpy)(dst, src);
  return heap_str("strcpy", CPY, dst, src, 0);
}

char *strncpy(char *dst, const char *src, size_t n) {
  if ((!wrap_touches(dst, n) && !heap_read(src))) return REAL(strncpy)(dst, src, n);
  return heap_str("strncpy", NCPY, dst, src, n);
}

char *strcat(char *dst, const char *src) {
  if ((!wrap_in_heap(dst) && !heap_read(src))) return REAL(strcat)(dst, src);
  return heap_str("strcat", CAT, dst, src, 0);
}

char *strncat(char *dst, const char *src, size_t n) {
  if ((!wrap_in_heap(dst) && !heap_read(src))) return REAL(strncat)(dst, src, n);
  return heap_str("strncat", NCAT, dst, src, n);
}

/* _FORTIFY_SOURCE builds call these. */
char *__strcpy_chk(char *dst, const char *src, size_t dstlen) {
  if ((!wrap_in_heap(dst) && !heap_read(src))) return REAL(__strcpy_chk)(dst, src, dstlen);
  if (any_len("strcpy", src, dstlen) >= dstlen) __chk_fail();
  return heap_str("strcpy", CPY, dst, src, 0);
}

char *__strncpy_chk(char *dst, const char *src, size_t n, size_t dstlen) {
  if ((!wrap_touches(dst, n) && !heap_read(src))) return REAL(__strncpy_chk)(dst, src, n, dstlen);
  if (dstlen < n) __chk_fail();
  return heap_str("strncpy", NCPY, dst, src, n);
}

char *__strcat_chk(char *dst, const char *src, size_t dstlen) {
  if ((!wrap_in_heap(dst) && !heap_read(src))) return REAL(__strcat_chk)(dst, src, dstlen);
  size_t dl = any_len("strcat", dst, dstlen), sl = any_len("strcat", src, SIZE_MAX);
  if (dl >= dstlen || sl >= dstlen - dl) __chk_fail();
  return heap_str("strcat", CAT, dst, src, 0);
}
