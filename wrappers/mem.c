/* mem* called by code amber never compiled (other libraries, files built
 * without the pass): writes into the heap run as one transaction each,
 * reads of the heap are copied out by the runtime (libc cannot read the
 * canonical window), through the engine when it keeps committed versions
 * outside the data area (mvcc).  The pass rewrites these calls itself in
 * instrumented code (runtime/entry/libc.c). */
#include <string.h>
#include <strings.h>

#include "wrap.h"

WRAP_REAL(memcpy)
WRAP_REAL(memmove)
WRAP_REAL(memset)
WRAP_REAL(memcmp)
WRAP_REAL(bcmp)
WRAP_REAL(__memcmpeq)
WRAP_REAL(memchr)
WRAP_REAL(__memcpy_chk)
WRAP_REAL(__memmove_chk)
WRAP_REAL(__memset_chk)


static void *plain_set(void *dst, int c, size_t n) {
  volatile unsigned char *d = dst;
  for (size_t i = 0; i < n; i++) d[i] = (unsigned char)c;
  return dst;
}

/* ---- the heap cases ---- */

struct move_req {
  void *dst;
  const void *src;
  size_t n;
  int c;
};

static void move_fn(void *arg) {
  struct move_req *r = arg;
  __amber_memmove(r->dst, r->src, r->n);
}

static void set_fn(void *arg) {
  struct move_req *r = arg;
  __amber_memset(r->dst, r->c, r->n);
}

/* A copy that touches the heap (either side, overlapping or not). */
static void *heap_move(const char *fn, void *dst, const void *src, size_t n) {
  amber_interpose_check_usable(fn, wrap_touches(dst, n) ? dst : src);
  if (wrap_touches(dst, n)) {
    struct move_req r = {dst, src, n, 0};
    amber_interpose_write_tx(fn, dst, move_fn, &r);
  } else {
    amber_wrap_read(dst, src, n);
    amber_interpose_code_loaded(dst, src, n);
  }
  return dst;
}

static void *heap_set(void *dst, int c, size_t n) {
  struct move_req r = {dst, NULL, n, c};
  amber_interpose_write_tx("memset", dst, set_fn, &r);
  return dst;
}

#define PIECE 256

struct cmp_req {
  const unsigned char *a, *b;
  size_t n;
  int result;
  const void *found;
};

static void cmp_fn(void *arg) {
  struct cmp_req *r = arg;
  unsigned char x[PIECE], y[PIECE];
  r->result = 0;
  for (size_t i = 0; i < r->n; i += PIECE) {
    size_t k = r->n - i < PIECE ? r->n - i : PIECE;
    amber_interpose_load(x, r->a + i, k);
    amber_interpose_load(y, r->b + i, k);
    int d = REAL(memcmp)(x, y, k);
    if (d) {
      r->result = d;
      return;
    }
  }
}

static void chr_fn(void *arg) {
  struct cmp_req *r = arg;
  unsigned char x[PIECE];
  r->found = NULL;
  for (size_t i = 0; i < r->n; i += PIECE) {
    size_t k = r->n - i < PIECE ? r->n - i : PIECE;
    amber_interpose_load(x, r->a + i, k);
    const unsigned char *z = REAL(memchr)(x, r->result, k);
    if (z) {
      r->found = r->a + i + (z - x);
      return;
    }
  }
}

/* ---- the interceptors ---- */

#define TOUCH2(d, s, n) (__builtin_expect(wrap_touches(d, n) || wrap_touches(s, n), 0))

void *memcpy(void *dst, const void *src, size_t n) {
  if (!TOUCH2(dst, src, n)) {
    __typeof__(memcpy) *f = TRY_REAL(memcpy);
    return f ? f(dst, src, n) : amber_wrap_plain_move(dst, src, n);
  }
  return heap_move("memcpy", dst, src, n);
}

void *memmove(void *dst, const void *src, size_t n) {
  if (!TOUCH2(dst, src, n)) {
    __typeof__(memmove) *f = TRY_REAL(memmove);
    return f ? f(dst, src, n) : amber_wrap_plain_move(dst, src, n);
  }
  return heap_move("memmove", dst, src, n);
}

void *memset(void *dst, int c, size_t n) {
  if (__builtin_expect(!wrap_touches(dst, n), 1)) {
    __typeof__(memset) *f = TRY_REAL(memset);
    return f ? f(dst, c, n) : plain_set(dst, c, n);
  }
  return heap_set(dst, c, n);
}

static int heap_cmp(const char *fn, const void *a, const void *b, size_t n) {
  amber_interpose_check_usable(fn, wrap_touches(a, n) ? a : b);
  struct cmp_req r = {a, b, n, 0, NULL};
  amber_interpose_read_tx(cmp_fn, &r);
  return r.result;
}

int memcmp(const void *a, const void *b, size_t n) {
  if (!TOUCH2(a, b, n)) return REAL(memcmp)(a, b, n);
  return heap_cmp("memcmp", a, b, n);
}

/* Compilers turn memcmp(...) == 0 into bcmp. */
int bcmp(const void *a, const void *b, size_t n) {
  if (!TOUCH2(a, b, n)) return REAL(bcmp)(a, b, n);
  return heap_cmp("bcmp", a, b, n);
}

/* GCC 12 and later turn memcmp(...) == 0 into __memcmpeq (glibc 2.35). */
int __memcmpeq(const void *a, const void *b, size_t n) {
  if (!TOUCH2(a, b, n)) return REAL(__memcmpeq)(a, b, n);
  return heap_cmp("__memcmpeq", a, b, n);
}

void *memchr(const void *s, int c, size_t n) {
  if (__builtin_expect(!wrap_touches(s, n), 1)) return REAL(memchr)(s, c, n);
  amber_interpose_check_usable("memchr", s);
  struct cmp_req r = {s, NULL, n, (unsigned char)c, NULL};
  amber_interpose_read_tx(chr_fn, &r);
  return (void *)r.found;
}

/* _FORTIFY_SOURCE builds call these. */
void *__memcpy_chk(void *dst, const void *src, size_t n, size_t dstlen) {
  if (!TOUCH2(dst, src, n)) return REAL(__memcpy_chk)(dst, src, n, dstlen);
  if (dstlen < n) __chk_fail();
  return heap_move("memcpy", dst, src, n);
}

void *__memmove_chk(void *dst, const void *src, size_t n, size_t dstlen) {
  if (!TOUCH2(dst, src, n)) return REAL(__memmove_chk)(dst, src, n, dstlen);
  if (dstlen < n) __chk_fail();
  return heap_move("memmove", dst, src, n);
}

void *__memset_chk(void *dst, int c, size_t n, size_t dstlen) {
  if (__builtin_expect(!wrap_touches(dst, n), 1)) return REAL(__memset_chk)(dst, c, n, dstlen);
  if (dstlen < n) __chk_fail();
  return heap_set(dst, c, n);
}
