/* The scanf family called by code amber never compiled, and by the program
 * itself (sscanf(r->line, "%d", &r->count) reads and writes the heap inside
 * libc, where no interceptor sees it).
 *
 * Each call's format is parsed and its destinations walked (on a copy of the
 * va_list: every assigning conversion takes one pointer).  When neither the
 * input string, the format nor any destination is in the heap, the real
 * function runs unchanged.  Otherwise:
 *   - an input string or a format in the heap is copied out first (through
 *     the engine where it keeps committed versions outside the data area);
 *   - a destination in the heap gets a volatile temporary in its place:
 *       fixed-size ones (numbers, %p, %n, %c, a %ms pointer) are filled
 *       with the destination's bytes first, and after the call those whose
 *       bytes changed are stored;
 *       strings (%s, %[, their wide forms) are read with glibc's %m (the
 *       format is rewritten: the width stays, libc allocates) and stored
 *       with their NUL when the conversion assigned them;
 *     all stores of one call are one write (amber_interpose_write_tx: inside
 *     a region it joins the region's transaction, outside it is a store
 *     outside regions, durable when the call returns).
 * Storing only changed bytes makes the stores exactly libc's without
 * knowing which conversions assigned (a value equal to the old one need not
 * be written).  Formats this parser does not know (more than MAXARG
 * destinations, mixed positional and sequential ones) run unchanged:
 * documented in docs/wrappers.md.
 *
 * glibc's <stdio.h> renames sscanf to __isoc99_sscanf (C99 and later), so
 * the interceptors are defined under asm labels: both names are served, each
 * by the real function of its own name (the plain one keeps GNU's %as). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "varargs.h"
#include "wrap.h"

#define MAXARG 64

/* ---- the real functions: every entry point calls its variadic twin ---- */

typedef int scan_str_fn(const char *s, const char *fmt, ...);
typedef int scan_file_fn(FILE *f, const char *fmt, ...);
typedef int vscan_str_fn(const char *s, const char *fmt, va_list ap);
typedef int vscan_file_fn(FILE *f, const char *fmt, va_list ap);

/* One real function, looked up by its symbol name at its first call
 * (wrap.h: scanf is no async-signal-safe function). */
#define SCAN_REAL(id, type, sym)                                         \
  static type *real_##id;                                                      \
  static type *get_##id(void) {                                                \
    type *f = __atomic_load_n(&real_##id, __ATOMIC_ACQUIRE);                   \
    if (__builtin_expect(f == NULL, 0)) {                                      \
      f = (type *)amber_wrap_resolve(sym);                                     \
      if (!f) amber_wrap_missing(sym);                                         \
      __atomic_store_n(&real_##id, f, __ATOMIC_RELEASE);                       \
    }                                                                          \
    return f;                                                                  \
  }

int amber_sscanf(const char *s, const char *fmt, ...) __asm__("sscanf");
int amber_vsscanf(const char *s, const char *fmt, va_list ap) __asm__("vsscanf");
int amber_fscanf(FILE *f, const char *fmt, ...) __asm__("fscanf");
int amber_vfscanf(FILE *f, const char *fmt, va_list ap) __asm__("vfscanf");
int amber_scanf(const char *fmt, ...) __asm__("scanf");
int amber_vscanf(const char *fmt, va_list ap) __asm__("vscanf");
int amber_isoc99_sscanf(const char *s, const char *fmt, ...) __asm__("__isoc99_sscanf");
int amber_isoc99_vsscanf(const char *s, const char *fmt, va_list ap) __asm__("__isoc99_vsscanf");
int amber_isoc99_fscanf(FILE *f, const char *fmt, ...) __asm__("__isoc99_fscanf");
int amber_isoc99_vfscanf(FILE *f, const char *fmt, va_list ap) __asm__("__isoc99_vfscanf");
int amber_isoc99_scanf(const char *fmt, ...) __asm__("__isoc99_scanf");
int amber_isoc99_vscanf(const char *fmt, va_list ap) __asm__("__isoc99_vscanf");

SCAN_REAL(sscanf, scan_str_fn, "sscanf")
SCAN_REAL(fscanf, scan_file_fn, "fscanf")
SCAN_REAL(vsscanf, vscan_str_fn, "vsscanf")
SCAN_REAL(vfscanf, vscan_file_fn, "vfscanf")
SCAN_REAL(i_sscanf, scan_str_fn, "__isoc99_sscanf")
SCAN_REAL(i_fscanf, scan_file_fn, "__isoc99_fscanf")
SCAN_REAL(i_vsscanf, vscan_str_fn, "__isoc99_vsscanf")
SCAN_REAL(i_vfscanf, vscan_file_fn, "__isoc99_vfscanf")

/* Which real functions a call goes to: GNU (plain names, %as allocates) or
 * ISO C99 (the __isoc99_ names, what <stdio.h> calls). */
struct flavor {
  int gnu;
  const char *name;
};

static _Noreturn void oom(void) { amber_fatal("out of memory scanning input that reads or writes the persistent heap"); }

/* ---- parsing ---- */

enum kind { K_FIXED, K_STRING, K_WSTRING };

/* One assigning conversion: the pointer argument it takes, where its
 * conversion character is in the format, and what it stores there. */
struct dest {
  void *p;           /* the caller's destination */
  int kind;          /* K_FIXED: size bytes; K_STRING / K_WSTRING: %s %[ */
  size_t size;       /* K_FIXED: bytes stored */
  size_t m_at;       /* K_STRING / K_WSTRING: where 'm' goes in the format */
  int heap;          /* p is in the heap: a temporary stands in */
  void *tmp;         /* K_FIXED: size bytes; strings: the char * libc allocates */
  unsigned char *old; /* K_FIXED: the destination's bytes before the call */
};

struct call {
  struct flavor fl;
  const char *fmt; /* the format: a volatile copy when it lives in the heap */
  char *fmt_copy;
  struct dest d[MAXARG];
  int n;         /* destinations in argument order */
  int positional;
  int nheap;
  int saved_errno;
};

static const char *skip_digits(const char *p, long *v) {
  long n = 0;
  while (*p >= '0' && *p <= '9') {
    if (n < 1000000000L) n = n * 10 + (*p - '0');
    p++;
  }
  if (v) *v = n;
  return p;
}

/* Bytes an integer conversion stores for a length modifier. */
static size_t int_size(const char *len) {
  if (len[0] == 'h') return len[1] == 'h' ? 1 : sizeof(short);
  if (len[0] == 'l') return len[1] == 'l' ? sizeof(long long) : sizeof(long);
  if (len[0] == 'q' || len[0] == 'L') return sizeof(long long);
  if (len[0] == 'j') return sizeof(intmax_t);
  if (len[0] == 'z') return sizeof(size_t);
  if (len[0] == 't') return sizeof(ptrdiff_t);
  return sizeof(int);
}

/* Fills c->d (without pointers); 0, or -1 when the format is not one this
 * parser knows. */
static int parse(struct call *c) {
  int seq = 0, pos = 0, maxpos = 0;
  for (const char *p = c->fmt; (p = strchr(p, '%')) != NULL;) {
    p++;
    if (*p == '%') {
      p++;
      continue;
    }
    long n;
    int at = 0;
    const char *q = skip_digits(p, &n);
    if (q != p && *q == '$') {
      if (n <= 0 || n > MAXARG) return -1;
      at = (int)n;
      p = q + 1;
    }
    int suppress = 0;
    while (*p == '*' || *p == '\'' || *p == 'I') suppress |= *p++ == '*';
    long width = 0;
    p = skip_digits(p, &width);
    int alloc = 0;
    if (*p == 'm') alloc = 1, p++;
    size_t m_at = (size_t)(p - c->fmt);
    const char *len = p;
    if (c->fl.gnu && *p == 'a' && (p[1] == 's' || p[1] == 'S' || p[1] == '[')) alloc = 1, p++, len = p;
    while (*p && strchr("hlqLjzt", *p)) p++;
    char conv = *p;
    if (!conv) return -1;
    struct dest d = {.kind = K_FIXED};
    int wide = len[0] == 'l' && len[1] != 'l';
    switch (conv) {
    case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': case 'n': case 'b':
      d.size = int_size(len);
      break;
    case 'a': case 'A': case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
      d.size = len[0] == 'L' || (len[0] == 'l' && len[1] == 'l') || len[0] == 'q' ? sizeof(long double)
               : len[0] == 'l' ? sizeof(double) : sizeof(float);
      break;
    case 'p': d.size = sizeof(void *); break;
    case 'c': case 'C':
      d.size = (size_t)(width ? width : 1) * (wide || conv == 'C' ? sizeof(wchar_t) : 1);
      break;
    case 's': case 'S': case '[':
      d.kind = wide || conv == 'S' ? K_WSTRING : K_STRING;
      d.m_at = m_at;
      if (conv == '[') { /* the scan set: ']' first is a member */
        p++;
        if (*p == '^') p++;
        if (*p == ']') p++;
        p = strchr(p, ']');
        if (!p) return -1;
      }
      break;
    default: return -1;
    }
    p++;
    if (alloc) d.kind = K_FIXED, d.size = sizeof(void *); /* %ms: a char * is stored */
    if (suppress) continue;
    if (at) {
      pos = 1;
      if (at > maxpos) maxpos = at;
      if (c->d[at - 1].size || c->d[at - 1].kind != K_FIXED) return -1; /* used twice */
      c->d[at - 1] = d;
    } else {
      seq = 1;
      if (c->n == MAXARG) return -1;
      c->d[c->n++] = d;
    }
  }
  if (pos && seq) return -1;
  if (pos) {
    for (int i = 0; i < maxpos; i++)
      if (!c->d[i].size && c->d[i].kind == K_FIXED) return -1; /* a gap */
    c->n = maxpos;
    c->positional = 1;
  }
  return 0;
}

/* ---- one call ---- */

static void call_done(struct call *c) {
  for (int i = 0; i < c->n; i++) {
    if (c->d[i].kind == K_FIXED) free(c->d[i].tmp);
    else if (c->d[i].tmp) free(*(void **)c->d[i].tmp), free(c->d[i].tmp);
    free(c->d[i].old);
  }
  free(c->fmt_copy);
}

static void load_old(void *arg) {
  struct call *c = arg;
  for (int i = 0; i < c->n; i++)
    if (c->d[i].heap && c->d[i].kind == K_FIXED) amber_interpose_load(c->d[i].old, c->d[i].p, c->d[i].size);
}

/* Decides whether the call needs the slow path; when it does, sets up the
 * temporaries and the rewritten format.  0: run the real function as is. */
static int plan(struct call *c, const char *fmt, va_list ap, int input_in_heap) {
  struct flavor fl = c->fl;
  memset(c, 0, sizeof *c);
  c->fl = fl;
  c->saved_errno = errno;
  c->fmt = fmt;
  if (wrap_in_heap(fmt)) {
    amber_interpose_check_usable(c->fl.name, fmt);
    c->fmt = c->fmt_copy = amber_wrap_strndup(fmt, SIZE_MAX, NULL);
    if (!c->fmt) oom();
  }
  if (parse(c) != 0) {
    c->n = 0; /* unknown: the real function, with a volatile format / input */
    return c->fmt_copy || input_in_heap;
  }
  va_list a;
  va_copy(a, ap);
  for (int i = 0; i < c->n; i++) {
    struct dest *d = &c->d[i];
    d->p = va_arg(a, void *);
    d->heap = d->p && (d->kind == K_FIXED ? wrap_touches(d->p, d->size) : wrap_in_heap(d->p));
    if (!d->heap) continue;
    amber_interpose_check_usable(c->fl.name, d->p);
    c->nheap++;
  }
  va_end(a);
  if (!c->nheap) return c->fmt_copy || input_in_heap;
  /* The format with an 'm' for every string into the heap. */
  size_t flen = strlen(c->fmt), extra = 0;
  for (int i = 0; i < c->n; i++) extra += c->d[i].heap && c->d[i].kind != K_FIXED;
  if (extra) {
    char *nf = malloc(flen + extra + 1);
    if (!nf) oom();
    size_t to = 0;
    for (size_t at = 0; at <= flen; at++) {
      for (int i = 0; i < c->n; i++)
        if (c->d[i].heap && c->d[i].kind != K_FIXED && c->d[i].m_at == at) nf[to++] = 'm';
      nf[to++] = c->fmt[at]; /* the NUL last */
    }
    free(c->fmt_copy);
    c->fmt = c->fmt_copy = nf;
  }
  for (int i = 0; i < c->n; i++) {
    struct dest *d = &c->d[i];
    if (!d->heap) continue;
    size_t sz = d->kind == K_FIXED ? d->size : sizeof(void *);
    d->tmp = calloc(1, sz);
    if (!d->tmp) oom();
    if (d->kind == K_FIXED && !(d->old = malloc(d->size))) oom();
  }
  amber_interpose_read_tx(load_old, c);
  for (int i = 0; i < c->n; i++)
    if (c->d[i].heap && c->d[i].kind == K_FIXED) memcpy(c->d[i].tmp, c->d[i].old, c->d[i].size);
  return 1;
}

/* The stores of one call, as one transaction. */
struct store {
  struct call *c;
  size_t *len; /* strings: bytes to store (0: not assigned) */
};

static void store_fn(void *arg) {
  struct store *s = arg;
  struct call *c = s->c;
  for (int i = 0; i < c->n; i++) {
    struct dest *d = &c->d[i];
    if (!d->heap) continue;
    if (d->kind == K_FIXED) {
      if (memcmp(d->tmp, d->old, d->size)) __amber_memmove(d->p, d->tmp, d->size);
    } else if (s->len[i]) {
      __amber_memmove(d->p, *(void **)d->tmp, s->len[i]);
    }
  }
}

static void store_all(struct call *c) {
  size_t len[MAXARG] = {0};
  void *first = NULL;
  for (int i = 0; i < c->n; i++) {
    struct dest *d = &c->d[i];
    if (!d->heap) continue;
    void *got = d->kind == K_FIXED ? NULL : *(void **)d->tmp;
    if (d->kind == K_STRING && got) len[i] = strlen(got) + 1;
    if (d->kind == K_WSTRING && got) len[i] = (wcslen(got) + 1) * sizeof(wchar_t);
    if (len[i] || (d->kind == K_FIXED && memcmp(d->tmp, d->old, d->size))) first = first ? first : d->p;
  }
  if (!first) return;
  struct store s = {c, len};
  amber_interpose_write_tx(c->fl.name, first, store_fn, &s);
}

/* The real call, with each heap destination's temporary in its place.
 * Every destination is a pointer, so the arguments are passed as MAXARG
 * pointers (the unused ones are ignored, as in any variadic call). */
#define ARGS64(a)                                                              \
  a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17],   \
      a[18], a[19], a[20], a[21], a[22], a[23], a[24], a[25], a[26], a[27], a[28], a[29], a[30], a[31], a[32], a[33],   \
      a[34], a[35], a[36], a[37], a[38], a[39], a[40], a[41], a[42], a[43], a[44], a[45], a[46], a[47], a[48], a[49],   \
      a[50], a[51], a[52], a[53], a[54], a[55], a[56], a[57], a[58], a[59], a[60], a[61], a[62], a[63]
_Static_assert(MAXARG == 64, "ARGS64 passes MAXARG pointers");

static int run(struct call *c, const char *s, FILE *f, va_list ap) {
  int r;
  if (!c->nheap) { /* only the input or the format was in the heap */
    if (f) r = c->fl.gnu ? get_vfscanf()(f, c->fmt, ap) : get_i_vfscanf()(f, c->fmt, ap);
    else r = c->fl.gnu ? get_vsscanf()(s, c->fmt, ap) : get_i_vsscanf()(s, c->fmt, ap);
    return r;
  }
  void *a[MAXARG] = {0};
  for (int i = 0; i < c->n; i++) a[i] = c->d[i].heap ? c->d[i].tmp : c->d[i].p;
  errno = c->saved_errno;
  if (f) r = c->fl.gnu ? get_fscanf()(f, c->fmt, ARGS64(a)) : get_i_fscanf()(f, c->fmt, ARGS64(a));
  else r = c->fl.gnu ? get_sscanf()(s, c->fmt, ARGS64(a)) : get_i_sscanf()(s, c->fmt, ARGS64(a));
  int e = errno;
  store_all(c);
  errno = e;
  return r;
}

static int scan_string(struct flavor fl, const char *s, const char *fmt, va_list ap) {
  struct call c;
  c.fl = fl;
  int in_heap = s && wrap_in_heap(s);
  if (!plan(&c, fmt, ap, in_heap)) {
    call_done(&c);
    return fl.gnu ? get_vsscanf()(s, fmt, ap) : get_i_vsscanf()(s, fmt, ap);
  }
  char *copy = NULL;
  if (in_heap) {
    amber_interpose_check_usable(fl.name, s);
    copy = amber_wrap_strndup(s, SIZE_MAX, NULL);
    if (!copy) oom();
    s = copy;
  }
  int r = run(&c, s, NULL, ap);
  int e = errno;
  free(copy);
  call_done(&c);
  errno = e;
  return r;
}

static int scan_file(struct flavor fl, FILE *f, const char *fmt, va_list ap) {
  struct call c;
  c.fl = fl;
  if (!plan(&c, fmt, ap, 0)) {
    call_done(&c);
    return fl.gnu ? get_vfscanf()(f, fmt, ap) : get_i_vfscanf()(f, fmt, ap);
  }
  int r = run(&c, NULL, f, ap);
  int e = errno;
  call_done(&c);
  errno = e;
  return r;
}

/* ---- the interceptors ---- */

#define GNU(n) ((struct flavor){1, n})
#define ISO(n) ((struct flavor){0, n})


int amber_vsscanf(const char *s, const char *fmt, va_list ap) {
  if (PASS()) return get_vsscanf()(s, fmt, ap);
  return scan_string(GNU("vsscanf"), s, fmt, ap);
}

int amber_sscanf(const char *s, const char *fmt, ...) {
  VARARGS(fmt, PASS() ? get_vsscanf()(s, fmt, ap) : scan_string(GNU("sscanf"), s, fmt, ap));
}

int amber_vfscanf(FILE *f, const char *fmt, va_list ap) {
  amber_interpose_sync(); /* may block on the stream: a synchronisation point */
  if (PASS()) return get_vfscanf()(f, fmt, ap);
  return scan_file(GNU("vfscanf"), f, fmt, ap);
}

int amber_fscanf(FILE *f, const char *fmt, ...) {
  amber_interpose_sync(); /* may block on the stream: a synchronisation point */
  VARARGS(fmt, PASS() ? get_vfscanf()(f, fmt, ap) : scan_file(GNU("fscanf"), f, fmt, ap));
}

int amber_vscanf(const char *fmt, va_list ap) {
  amber_interpose_sync(); /* may block on the stream: a synchronisation point */
  if (PASS()) return get_vfscanf()(stdin, fmt, ap);
  return scan_file(GNU("vscanf"), stdin, fmt, ap);
}

int amber_scanf(const char *fmt, ...) {
  amber_interpose_sync(); /* may block on the stream: a synchronisation point */
  VARARGS(fmt, PASS() ? get_vfscanf()(stdin, fmt, ap) : scan_file(GNU("scanf"), stdin, fmt, ap));
}

int amber_isoc99_vsscanf(const char *s, const char *fmt, va_list ap) {
  if (PASS()) return get_i_vsscanf()(s, fmt, ap);
  return scan_string(ISO("vsscanf"), s, fmt, ap);
}

int amber_isoc99_sscanf(const char *s, const char *fmt, ...) {
  VARARGS(fmt, PASS() ? get_i_vsscanf()(s, fmt, ap) : scan_string(ISO("sscanf"), s, fmt, ap));
}

int amber_isoc99_vfscanf(FILE *f, const char *fmt, va_list ap) {
  amber_interpose_sync(); /* may block on the stream: a synchronisation point */
  if (PASS()) return get_i_vfscanf()(f, fmt, ap);
  return scan_file(ISO("vfscanf"), f, fmt, ap);
}

int amber_isoc99_fscanf(FILE *f, const char *fmt, ...) {
  amber_interpose_sync(); /* may block on the stream: a synchronisation point */
  VARARGS(fmt, PASS() ? get_i_vfscanf()(f, fmt, ap) : scan_file(ISO("fscanf"), f, fmt, ap));
}

int amber_isoc99_vscanf(const char *fmt, va_list ap) {
  amber_interpose_sync(); /* may block on the stream: a synchronisation point */
  if (PASS()) return get_i_vfscanf()(stdin, fmt, ap);
  return scan_file(ISO("vscanf"), stdin, fmt, ap);
}

int amber_isoc99_scanf(const char *fmt, ...) {
  amber_interpose_sync(); /* may block on the stream: a synchronisation point */
  VARARGS(fmt, PASS() ? get_i_vfscanf()(stdin, fmt, ap) : scan_file(ISO("scanf"), stdin, fmt, ap));
}
