/* Comparisons by case and by locale of heap strings, by code amber never
 * compiled: strcasecmp strncasecmp (and their _l forms) compare byte by
 * byte through the engine, both strings in one snapshot, only as far as
 * they differ; strcoll strverscmp strxfrm (and _l forms) need whole
 * strings: heap strings are copied out first.  strxfrm into a heap buffer
 * is one write (a transaction, or part of the running region's). */
#include <ctype.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strscan.h"
#include "wrap.h"

WRAP_REAL(strcasecmp)
WRAP_REAL(strncasecmp)
WRAP_REAL(strcasecmp_l)
WRAP_REAL(strncasecmp_l)
WRAP_REAL(strcoll)
WRAP_REAL(strcoll_l)
WRAP_REAL(strverscmp)
WRAP_REAL(strxfrm)
WRAP_REAL(strxfrm_l)

/* ---- by case: as glibc, the difference of the first differing bytes
 * after tolower in the locale ---- */

struct case_req {
  const char *a, *b;
  size_t n;
  locale_t loc; /* NULL: the thread's */
  int result;
};

static void case_fn(void *arg) {
  struct case_req *r = arg;
  struct wrap_cursor x = {.p = (const unsigned char *)r->a}, y = {.p = (const unsigned char *)r->b};
  r->result = 0;
  for (size_t i = 0; i < r->n; i++) {
    unsigned char u = wrap_next_byte(&x), v = wrap_next_byte(&y);
    int d = r->loc ? tolower_l(u, r->loc) - tolower_l(v, r->loc) : tolower(u) - tolower(v);
    if (d) {
      r->result = d;
      return;
    }
    if (!u) return;
  }
}

static int heap_case(const char *fn, const char *a, const char *b, size_t n, locale_t loc) {
  amber_interpose_check_usable(fn, wrap_in_heap(a) ? a : b);
  struct case_req r = {a, b, n, loc, 0};
  amber_interpose_read_tx(case_fn, &r);
  return r.result;
}

#define EITHER(a, b) __builtin_expect(wrap_in_heap(a) || wrap_in_heap(b), 0)

int strcasecmp(const char *a, const char *b) {
  if (!EITHER(a, b)) return REAL(strcasecmp)(a, b);
  return heap_case("strcasecmp", a, b, SIZE_MAX, NULL);
}

int strncasecmp(const char *a, const char *b, size_t n) {
  if (!EITHER(a, b)) return REAL(strncasecmp)(a, b, n);
  return heap_case("strncasecmp", a, b, n, NULL);
}

int strcasecmp_l(const char *a, const char *b, locale_t loc) {
  if (!EITHER(a, b)) return REAL(strcasecmp_l)(a, b, loc);
  return heap_case("strcasecmp_l", a, b, SIZE_MAX, loc);
}

int strncasecmp_l(const char *a, const char *b, size_t n, locale_t loc) {
  if (!EITHER(a, b)) return REAL(strncasecmp_l)(a, b, n, loc);
  return heap_case("strncasecmp_l", a, b, n, loc);
}

/* ---- by locale: whole volatile copies, then the C library ---- */

struct pair {
  const char *a, *b;
};

static struct pair copy_pair(const char *fn, const char *a, const char *b) {
  amber_interpose_check_usable(fn, wrap_in_heap(a) ? a : b);
  struct pair p = {wrap_arg(a), wrap_arg(b)};
  if (!p.a || !p.b) amber_wrap_nomem(fn, p.a ? b : a, 0);
  return p;
}

static void free_pair(struct pair p, const char *a, const char *b) {
  wrap_arg_free(a, p.a);
  wrap_arg_free(b, p.b);
}

int strcoll(const char *a, const char *b) {
  if (!EITHER(a, b)) return REAL(strcoll)(a, b);
  struct pair p = copy_pair("strcoll", a, b);
  int r = REAL(strcoll)(p.a, p.b);
  free_pair(p, a, b);
  return r;
}

int strcoll_l(const char *a, const char *b, locale_t loc) {
  if (!EITHER(a, b)) return REAL(strcoll_l)(a, b, loc);
  struct pair p = copy_pair("strcoll_l", a, b);
  int r = REAL(strcoll_l)(p.a, p.b, loc);
  free_pair(p, a, b);
  return r;
}

int strverscmp(const char *a, const char *b) {
  if (!EITHER(a, b)) return REAL(strverscmp)(a, b);
  struct pair p = copy_pair("strverscmp", a, b);
  int r = REAL(strverscmp)(p.a, p.b);
  free_pair(p, a, b);
  return r;
}

/* strxfrm with either side in the heap: the source copied out, the result
 * formed in volatile memory and written as one write (as much of it as
 * fits in n: the C library leaves dst unspecified when it does not). */
static size_t heap_xfrm(const char *fn, char *dst, const char *src, size_t n, locale_t loc) {
  amber_interpose_check_usable(fn, wrap_in_heap(src) ? (const void *)src : dst);
  const char *s = wrap_arg(src);
  if (!s) amber_wrap_nomem(fn, src, 0);
  size_t r;
  if (!wrap_touches(dst, n)) {
    r = loc ? REAL(strxfrm_l)(dst, s, n, loc) : REAL(strxfrm)(dst, s, n);
  } else {
    char *tmp = malloc(n);
    if (!tmp) amber_wrap_nomem(fn, dst, n);
    r = loc ? REAL(strxfrm_l)(tmp, s, n, loc) : REAL(strxfrm)(tmp, s, n);
    amber_wrap_write(fn, dst, tmp, r < n ? r + 1 : n);
    free(tmp);
  }
  wrap_arg_free(src, s);
  return r;
}

size_t strxfrm(char *dst, const char *src, size_t n) {
  if (__builtin_expect(!wrap_in_heap(src) && !wrap_touches(dst, n), 1)) return REAL(strxfrm)(dst, src, n);
  return heap_xfrm("strxfrm", dst, src, n, NULL);
}

size_t strxfrm_l(char *dst, const char *src, size_t n, locale_t loc) {
  if (__builtin_expect(!wrap_in_heap(src) && !wrap_touches(dst, n), 1)) return REAL(strxfrm_l)(dst, src, n, loc);
  return heap_xfrm("strxfrm_l", dst, src, n, loc);
}
