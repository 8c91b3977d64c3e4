/* Number conversions of heap strings, by code amber never compiled (and
 * by instrumented code: glibc's headers turn atoi, atol, atoll and atof
 * into strtol, strtoll and strtod at -O1 and above): atoi atol atoll atof
 * strtol strtoul strtoll strtoull strtoq strtouq strtod strtof strtold
 * strtoimax strtoumax, strtof32 strtof64 strtof32x strtof64x, the _l forms,
 * and glibc 2.38's __isoc23_ forms.
 *
 * Only the number is copied out, not the rest of the string, so a loop
 * that parses a long heap text number by number stays linear: leading
 * white space is counted, then the longest run of bytes that can belong
 * to a number (letters and digits; for floating point also . + - ( ) _
 * and the locale's radix) is copied out through the engine and given to
 * the C library.  The C library never reads past that run (the byte after
 * it ends every number), so the result, errno and the end position are
 * those of the call on the whole string.  *endptr points into the
 * caller's string; an endptr that lives in the heap is written in a
 * transaction (or the running region's). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "glibc.h"
#include "strscan.h"
#include "wrap.h"

/* ---- the number's bytes, copied out ---- */

struct num {
  const char *s;   /* the caller's string */
  int fp;          /* floating point: more bytes can belong to the number */
  locale_t loc;    /* NULL: the thread's locale */
  size_t ws;       /* leading white space */
  size_t len, cap; /* the run copied out, into text (cap bytes) */
  char *text;
  char small[96];
  unsigned char radix[8]; /* the radix character's bytes (floating point) */
};

static int is_space(const struct num *r, unsigned char c) { return r->loc ? isspace_l(c, r->loc) : isspace(c); }

static int in_number(const struct num *r, unsigned char c) {
  if (r->loc ? isalnum_l(c, r->loc) : isalnum(c)) return 1;
  if (!r->fp) return 0;
  if (c == '.' || c == '+' || c == '-' || c == '(' || c == ')' || c == '_') return 1;
  return memchr(r->radix, c, sizeof r->radix) != NULL && c;
}

static void num_fn(void *arg) {
  struct num *r = arg;
  struct wrap_cursor c = {.p = (const unsigned char *)r->s};
  unsigned char u;
  r->ws = 0;
  while ((u = wrap_next_byte(&c)) && is_space(r, u)) r->ws++;
  /* the sign: a number's first byte */
  r->len = 0;
  if (u == '+' || u == '-' || (u && in_number(r, u))) {
    do {
      if (r->len + 1 < r->cap) r->text[r->len] = (char)u;
      r->len++;
    } while ((u = wrap_next_byte(&c)) && in_number(r, u));
  }
  if (r->len < r->cap) r->text[r->len] = 0;
}

/* Copies the number at r->s out (grows r->text as needed). */
static void num_copy(const char *fn, struct num *r) {
  amber_interpose_check_usable(fn, r->s);
  if (r->fp) {
    const char *rad = r->loc ? nl_langinfo_l(RADIXCHAR, r->loc) : nl_langinfo(RADIXCHAR);
    strncpy((char *)r->radix, rad, sizeof r->radix);
  }
  r->text = r->small;
  r->cap = sizeof r->small;
  for (;;) {
    amber_interpose_read_tx(num_fn, r);
    if (r->len < r->cap) return;
    if (r->text != r->small) free(r->text);
    r->cap = r->len + 1;
    r->text = malloc(r->cap);
    if (!r->text) amber_wrap_nomem(fn, r->s, r->cap);
  }
}

/* The position in the caller's string of e (a position in r->text, from
 * the C library): no conversion (e == text) gives the string itself. */
static char *num_end(const struct num *r, const char *e) {
  return e == r->text ? (char *)r->s : (char *)r->s + r->ws + (size_t)(e - r->text);
}

/* Stores the end position (errno kept: the C library's). */
static void num_done(const char *fn, struct num *r, char **endp, const char *e) {
  int err = errno;
  if (endp) {
    char *v = num_end(r, e);
    if (wrap_touches(endp, sizeof *endp)) amber_wrap_write(fn, endp, &v, sizeof v);
    else *endp = v;
  }
  if (r->text != r->small) free(r->text);
  errno = err;
}

/* A string that is volatile with an end position in the heap: the C
 * library on the string, then the position stored through the engine. */
static void end_store(const char *fn, char **endp, char *v) {
  int err = errno;
  amber_wrap_write(fn, endp, &v, sizeof v);
  errno = err;
}

#define TOUCHES_NUM(s, endp) __builtin_expect(wrap_in_heap(s) || ((endp) && wrap_touches(endp, sizeof *(endp))), 0)

/* An interceptor of a conversion: T NAME(s, endp ARGS) where ARGS is
 * `, int base`, `, int base, locale_t loc`, `` or `, locale_t loc`
 * (PARAMS), passed on as PASS; LOC is the locale (0: the thread's) and FP
 * says floating point.  heap_NAME is the heap case. */
#define CONV(T, NAME, FN, FP, LOC, PARAMS, PASS)                                                  \
  WRAP_REAL(NAME)                                                                               \
  static T heap_##NAME(const char *s, char **endp PARAMS) {                                     \
    char *e;                                                                                    \
    if (!wrap_in_heap(s)) {                                                                     \
      T v = REAL(NAME)(s, &e PASS);                                                             \
      end_store(FN, endp, e);                                                                   \
      return v;                                                                                 \
    }                                                                                           \
    struct num r = {.s = s, .fp = FP, .loc = LOC};                                              \
    num_copy(FN, &r);                                                                           \
    T v = REAL(NAME)(r.text, &e PASS);                                                          \
    num_done(FN, &r, endp, e);                                                                  \
    return v;                                                                                   \
  }                                                                                             \
  T NAME(const char *s, char **endp PARAMS) {                                                   \
    if (!TOUCHES_NUM(s, endp)) return REAL(NAME)(s, endp PASS);                                 \
    return heap_##NAME(s, endp PASS);                                                           \
  }

#define BASE , int base
#define BASE_LOC , int base, locale_t loc
#define LOC_ONLY , locale_t loc
#define P_BASE , base
#define P_BASE_LOC , base, loc
#define P_LOC , loc
CONV(long, strtol, "strtol", 0, 0, BASE, P_BASE)
CONV(unsigned long, strtoul, "strtoul", 0, 0, BASE, P_BASE)
CONV(long long, strtoll, "strtoll", 0, 0, BASE, P_BASE)
CONV(unsigned long long, strtoull, "strtoull", 0, 0, BASE, P_BASE)
CONV(long long, strtoq, "strtoq", 0, 0, BASE, P_BASE)
CONV(unsigned long long, strtouq, "strtouq", 0, 0, BASE, P_BASE)
CONV(intmax_t, strtoimax, "strtoimax", 0, 0, BASE, P_BASE)
CONV(uintmax_t, strtoumax, "strtoumax", 0, 0, BASE, P_BASE)
CONV(long, strtol_l, "strtol_l", 0, loc, BASE_LOC, P_BASE_LOC)
CONV(unsigned long, strtoul_l, "strtoul_l", 0, loc, BASE_LOC, P_BASE_LOC)
CONV(long long, strtoll_l, "strtoll_l", 0, loc, BASE_LOC, P_BASE_LOC)
CONV(unsigned long long, strtoull_l, "strtoull_l", 0, loc, BASE_LOC, P_BASE_LOC)
CONV(long, __isoc23_strtol, "strtol", 0, 0, BASE, P_BASE)
CONV(unsigned long, __isoc23_strtoul, "strtoul", 0, 0, BASE, P_BASE)
CONV(long long, __isoc23_strtoll, "strtoll", 0, 0, BASE, P_BASE)
CONV(unsigned long long, __isoc23_strtoull, "strtoull", 0, 0, BASE, P_BASE)
CONV(intmax_t, __isoc23_strtoimax, "strtoimax", 0, 0, BASE, P_BASE)
CONV(uintmax_t, __isoc23_strtoumax, "strtoumax", 0, 0, BASE, P_BASE)
CONV(long, __isoc23_strtol_l, "strtol_l", 0, loc, BASE_LOC, P_BASE_LOC)
CONV(unsigned long, __isoc23_strtoul_l, "strtoul_l", 0, loc, BASE_LOC, P_BASE_LOC)
CONV(long long, __isoc23_strtoll_l, "strtoll_l", 0, loc, BASE_LOC, P_BASE_LOC)
CONV(unsigned long long, __isoc23_strtoull_l, "strtoull_l", 0, loc, BASE_LOC, P_BASE_LOC)
CONV(double, strtod, "strtod", 1, 0, , )
CONV(float, strtof, "strtof", 1, 0, , )
CONV(long double, strtold, "strtold", 1, 0, , )
CONV(double, strtod_l, "strtod_l", 1, loc, LOC_ONLY, P_LOC)
CONV(float, strtof_l, "strtof_l", 1, loc, LOC_ONLY, P_LOC)
CONV(long double, strtold_l, "strtold_l", 1, loc, LOC_ONLY, P_LOC)
CONV(_Float32, strtof32, "strtof32", 1, 0, , )
CONV(_Float64, strtof64, "strtof64", 1, 0, , )
CONV(_Float32x, strtof32x, "strtof32x", 1, 0, , )
CONV(_Float64x, strtof64x, "strtof64x", 1, 0, , )
CONV(_Float32, strtof32_l, "strtof32_l", 1, loc, LOC_ONLY, P_LOC)
CONV(_Float64, strtof64_l, "strtof64_l", 1, loc, LOC_ONLY, P_LOC)
CONV(_Float32x, strtof32x_l, "strtof32x_l", 1, loc, LOC_ONLY, P_LOC)
CONV(_Float64x, strtof64x_l, "strtof64x_l", 1, loc, LOC_ONLY, P_LOC)

/* ---- atoi and friends: as the C library defines them ---- */

WRAP_REAL(atoi)
WRAP_REAL(atol)
WRAP_REAL(atoll)
WRAP_REAL(atof)

int atoi(const char *s) {
  if (__builtin_expect(!wrap_in_heap(s), 1)) return REAL(atoi)(s);
  return (int)heap_strtol(s, NULL, 10);
}

long atol(const char *s) {
  if (__builtin_expect(!wrap_in_heap(s), 1)) return REAL(atol)(s);
  return heap_strtol(s, NULL, 10);
}

long long atoll(const char *s) {
  if (__builtin_expect(!wrap_in_heap(s), 1)) return REAL(atoll)(s);
  return heap_strtoll(s, NULL, 10);
}

double atof(const char *s) {
  if (__builtin_expect(!wrap_in_heap(s), 1)) return REAL(atof)(s);
  return heap_strtod(s, NULL);
}
