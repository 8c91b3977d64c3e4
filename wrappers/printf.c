/* The printf family called by code amber never compiled, and by the
 * program itself outside regions (printf("%s", r->name) reads the heap
 * inside libc, where no interceptor sees it).
 *
 * Each call's format is parsed and its arguments walked (on a copy of the
 * va_list).  When no argument matters the real function runs unchanged.
 * Arguments that matter:
 *   - %s / %ls of a heap string (and a format in the heap): libc cannot
 *     read the canonical window (strict mode), so the string is copied out
 *     (through the engine when it keeps committed versions outside the data
 *     area, mvcc: every heap string of the call in one snapshot) and
 *     formatted from the copy;
 *   - %n into the heap: the count is stored in a transaction;
 *   - a destination in the heap (sprintf, snprintf, ...): the text is
 *     formatted into volatile memory and stored in one transaction.
 * Then the output is built piece by piece, one conversion per call to the
 * real snprintf, so widths, flags and precisions behave as libc's.  A
 * format this parser does not know (a conversion registered with
 * register_printf_specifier, more than 64 positional arguments) runs
 * unchanged: documented in docs/wrappers.md.  Inside a region that may
 * still be undone, the text for a stream or descriptor is formatted now
 * and held until the region commits (output.c). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "output.h"
#include "varargs.h"
#include "wrap.h"

WRAP_REAL(vfprintf)
WRAP_REAL(vdprintf)
WRAP_REAL(vsprintf)
WRAP_REAL(vsnprintf)
WRAP_REAL(vasprintf)
WRAP_REAL(snprintf)
WRAP_REAL(__vfprintf_chk)
WRAP_REAL(__vdprintf_chk)
WRAP_REAL(__vsprintf_chk)
WRAP_REAL(__vsnprintf_chk)
WRAP_REAL(__vasprintf_chk)

static _Noreturn void oom(void) { amber_fatal("out of memory formatting printf output that reads or writes the persistent heap"); }

/* ---- parsing ---- */

enum cls { A_NONE, A_INT, A_LONG, A_DBL, A_LDBL, A_PTR };
enum len { L_NONE, L_HH, L_H, L_L, L_LL, L_BIGL, L_J, L_Z, L_T };
#define MAXPOS 64
#define MAXSPEC 60 /* characters of one conversion specification */

union val {
  int i;
  long l;
  double d;
  long double ld;
  void *p;
};

struct spec {
  const char *start, *end; /* from '%' to one past the conversion */
  int pos;                 /* n of "%n$", 0 when sequential */
  int wpos, ppos;          /* width / precision from an argument: 0 none, -1 the next one, n positional */
  char conv;
  unsigned char len, cls;
  int dot;       /* a precision is given ('.') */
  int lit_prec;  /* its digits, when not from an argument */
  int width, prec;
  union val v;
  /* A heap string (%s, %ls) to copy out, or a heap %n target. */
  int heap;
  char *copy; /* volatile copy (a wchar_t array for %ls) */
  size_t cap, clen;
};

static const char *digits(const char *p, int *n) {
  long v = 0;
  while (*p >= '0' && *p <= '9') {
    if (v < INT_MAX / 10) v = v * 10 + (*p - '0');
    else v = INT_MAX;
    p++;
  }
  *n = (int)v;
  return p;
}

/* "*" or "*n$" at p (just past the '*'): -1 or n. */
static const char *star(const char *p, int *pos) {
  int n;
  const char *q = digits(p, &n);
  if (q != p && *q == '$' && n > 0) {
    *pos = n;
    return q + 1;
  }
  *pos = -1;
  return p;
}

/* One conversion at p (a '%'); NULL when this parser does not know it. */
static const char *parse_spec(const char *p, struct spec *s) {
  memset(s, 0, sizeof *s);
  s->start = p++;
  if (*p == '%') {
    s->conv = '%';
    s->end = p + 1;
    return s->end;
  }
  int n;
  const char *q = digits(p, &n);
  if (q != p && *q == '$') {
    if (n <= 0) return NULL;
    s->pos = n;
    p = q + 1;
  }
  while (*p && strchr("-+ #0'I", *p)) p++;
  if (*p == '*') p = star(p + 1, &s->wpos);
  else p = digits(p, &n);
  if (*p == '.') {
    s->dot = 1;
    p++;
    if (*p == '*') p = star(p + 1, &s->ppos);
    else p = digits(p, &s->lit_prec);
  }
  switch (*p) {
  case 'h':
    if (*++p == 'h') p++, s->len = L_HH;
    else s->len = L_H;
    break;
  case 'l':
    if (*++p == 'l') p++, s->len = L_LL;
    else s->len = L_L;
    break;
  case 'q': p++, s->len = L_LL; break;
  case 'L': p++, s->len = L_BIGL; break;
  case 'j': p++, s->len = L_J; break;
  case 'z':
  case 'Z': p++, s->len = L_Z; break;
  case 't': p++, s->len = L_T; break;
  }
  s->conv = *p;
  switch (*p) {
  case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': case 'b': case 'B':
    s->cls = s->len == L_NONE || s->len == L_HH || s->len == L_H ? A_INT : A_LONG;
    break;
  case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
    s->cls = s->len == L_BIGL ? A_LDBL : A_DBL;
    break;
  case 'c': case 'C': s->cls = A_INT; break;
  case 's': case 'S': case 'p': case 'n': s->cls = A_PTR; break;
  case 'm': s->cls = A_NONE; break;
  default: return NULL; /* unknown, or a registered conversion */
  }
  s->end = p + 1;
  return s->end - s->start > MAXSPEC ? NULL : s->end;
}

static int wide_str(const struct spec *s) { return s->conv == 'S' || (s->conv == 's' && s->len == L_L); }

/* ---- one call ---- */

struct job {
  const char *fmt; /* the format (a volatile copy when it lives in the heap) */
  char *fmt_copy;
  struct spec *specs;
  size_t nspecs;
  struct spec local[16];
  int saved_errno;
};

static void job_done(struct job *j) {
  for (size_t i = 0; i < j->nspecs; i++) free(j->specs[i].copy);
  if (j->specs != j->local) free(j->specs);
  free(j->fmt_copy);
}

/* Fills j->specs; 0, or -1 when the format is not one this parser knows. */
static int parse(struct job *j) {
  size_t cap = sizeof j->local / sizeof j->local[0], n = 0;
  j->specs = j->local;
  for (const char *p = j->fmt; (p = strchr(p, '%')) != NULL;) {
    if (n == cap) {
      size_t nc = cap * 2;
      struct spec *ns = malloc(nc * sizeof *ns);
      if (!ns) return -1;
      memcpy(ns, j->specs, n * sizeof *ns);
      if (j->specs != j->local) free(j->specs);
      j->specs = ns;
      cap = nc;
    }
    p = parse_spec(p, &j->specs[n]);
    if (!p) return -1;
    n++;
    j->nspecs = n;
  }
  return 0;
}

static void fetch(union val *v, int cls, va_list *ap) {
  switch (cls) {
  case A_INT: v->i = va_arg(*ap, int); break;
  case A_LONG: v->l = va_arg(*ap, long); break;
  case A_DBL: v->d = va_arg(*ap, double); break;
  case A_LDBL: v->ld = va_arg(*ap, long double); break;
  case A_PTR: v->p = va_arg(*ap, void *); break;
  }
}

/* Takes every argument (from a copy of the caller's list); -1 when the
 * positions do not add up to something this code can walk. */
static int fetch_all(struct job *j, va_list ap0) {
  va_list ap;
  va_copy(ap, ap0);
  int positional = 0, sequential = 0, rc = 0;
  for (size_t i = 0; i < j->nspecs; i++) {
    struct spec *s = &j->specs[i];
    if (s->conv == '%') continue;
    if (s->pos || s->wpos > 0 || s->ppos > 0) positional = 1;
    if ((s->cls != A_NONE && !s->pos) || s->wpos < 0 || s->ppos < 0) sequential = 1;
  }
  if (positional && sequential) rc = -1;
  else if (!positional) {
    for (size_t i = 0; i < j->nspecs; i++) {
      struct spec *s = &j->specs[i];
      if (s->conv == '%') continue;
      if (s->wpos) s->width = va_arg(ap, int);
      if (s->ppos) s->prec = va_arg(ap, int);
      fetch(&s->v, s->cls, &ap);
    }
  } else {
    unsigned char type[MAXPOS + 1] = {0};
    union val vals[MAXPOS + 1];
    int max = 0;
    for (size_t i = 0; i < j->nspecs && !rc; i++) {
      const struct spec *s = &j->specs[i];
      int want[3][2] = {{s->pos, s->cls}, {s->wpos, A_INT}, {s->ppos, A_INT}};
      for (int k = 0; k < 3; k++) {
        int at = want[k][0], cls = want[k][1];
        if (!at || cls == A_NONE) continue;
        if (at > MAXPOS || (type[at] && type[at] != cls)) rc = -1;
        else type[at] = (unsigned char)cls;
        if (at > max) max = at;
      }
    }
    for (int at = 1; at <= max && !rc; at++) {
      if (!type[at]) rc = -1; /* a gap: its type is unknown */
      else fetch(&vals[at], type[at], &ap);
    }
    for (size_t i = 0; i < j->nspecs && !rc; i++) {
      struct spec *s = &j->specs[i];
      if (s->pos && s->cls != A_NONE) s->v = vals[s->pos];
      if (s->wpos) s->width = vals[s->wpos].i;
      if (s->ppos) s->prec = vals[s->ppos].i;
    }
  }
  va_end(ap);
  return rc;
}

enum { FAST, INTO_HEAP, PIECES };

/* How to run this call: FAST (the real function, unchanged), INTO_HEAP
 * (format with libc into volatile memory, then store into the heap), or
 * PIECES (copy heap strings out, build the text piece by piece). */
static int plan(struct job *j, const char *fn, const char *fmt, va_list ap, int dst_in_heap) {
  memset(j, 0, sizeof *j);
  j->saved_errno = errno;
  j->fmt = fmt;
  j->specs = j->local;
  if (wrap_in_heap(fmt)) {
    amber_interpose_check_usable(fn, fmt);
    j->fmt = j->fmt_copy = amber_wrap_strndup(fmt, SIZE_MAX, NULL);
    if (!j->fmt) oom();
  }
  int mode = dst_in_heap ? INTO_HEAP : FAST;
  if (parse(j) != 0) return mode;
  int relevant = 0;
  for (size_t i = 0; i < j->nspecs; i++) {
    char c = j->specs[i].conv;
    relevant |= c == 'n' || c == 's' || c == 'S';
  }
  if (!relevant || fetch_all(j, ap) != 0) return mode;
  for (size_t i = 0; i < j->nspecs; i++) {
    struct spec *s = &j->specs[i];
    if (s->conv == 'n' && s->v.p && wrap_touches(s->v.p, 1)) s->heap = 1;
    if ((s->conv == 's' || s->conv == 'S') && s->v.p && wrap_in_heap(s->v.p)) {
      amber_interpose_check_usable(fn, s->v.p);
      s->heap = 1;
    }
    if (s->heap) mode = PIECES;
  }
  return mode;
}

/* ---- copying heap strings out, in one snapshot ---- */

static void copy_fn(void *arg) {
  struct job *j = arg;
  for (size_t i = 0; i < j->nspecs; i++) {
    struct spec *s = &j->specs[i];
    if (!s->heap || s->conv == 'n') continue;
    /* The precision bounds what is read: the array need not end in NUL.
     * A negative one from an argument counts as none. */
    int prec = s->ppos ? s->prec : s->lit_prec;
    size_t max = s->dot && prec >= 0 ? (size_t)prec : (size_t)-1;
    if (!wide_str(s)) {
      s->clen = amber_interpose_strnlen_tx(s->v.p, max);
      if (s->clen < s->cap) amber_interpose_load(s->copy, s->v.p, s->clen);
    } else {
      const wchar_t *w = s->v.p;
      size_t n = 0;
      for (;; n++) {
        wchar_t c;
        if (!wrap_touches(w + n, sizeof c)) break; /* left the heap: stop (as at a NUL) */
        amber_interpose_load(&c, w + n, sizeof c);
        if (!c) break;
        if (n < s->cap / sizeof c) ((wchar_t *)s->copy)[n] = c;
      }
      s->clen = n * sizeof(wchar_t);
    }
  }
}

static void copy_heap_strings(struct job *j) {
  for (;;) {
    int again = 0;
    for (size_t i = 0; i < j->nspecs; i++) {
      struct spec *s = &j->specs[i];
      if (!s->heap || s->conv == 'n') continue;
      size_t unit = wide_str(s) ? sizeof(wchar_t) : 1;
      if (s->copy && s->clen + unit <= s->cap) continue;
      size_t cap = s->copy ? s->clen + unit : 64 * unit;
      free(s->copy);
      s->copy = malloc(cap);
      if (!s->copy) oom();
      s->cap = cap;
      again = 1;
    }
    if (!again) break;
    amber_interpose_read_tx(copy_fn, j);
  }
  for (size_t i = 0; i < j->nspecs; i++) {
    struct spec *s = &j->specs[i];
    if (!s->heap || s->conv == 'n') continue;
    if (wide_str(s)) ((wchar_t *)s->copy)[s->clen / sizeof(wchar_t)] = 0;
    else s->copy[s->clen] = 0;
  }
}

/* ---- building the text ---- */

struct out {
  char *p;
  size_t n, cap;
};

static void out_room(struct out *o, size_t more) {
  if (o->n + more + 1 <= o->cap) return;
  size_t cap = o->cap ? o->cap : 256;
  while (cap < o->n + more + 1) cap *= 2;
  char *p = realloc(o->p, cap);
  if (!p) oom();
  o->p = p;
  o->cap = cap;
}

static void out_add(struct out *o, const char *s, size_t n) {
  out_room(o, n);
  memcpy(o->p + o->n, s, n);
  o->n += n;
  o->p[o->n] = 0;
}

/* The conversion without its positions: "%2$*1$d" becomes "%*d". */
static void mini_format(const struct spec *s, char *m) {
  const char *p = s->start + 1;
  *m++ = '%';
  if (s->pos) p = strchr(p, '$') + 1;
  while (p < s->end) {
    char c = *p++;
    *m++ = c;
    if (c == '*') {
      const char *q = p;
      while (*q >= '0' && *q <= '9') q++;
      if (q != p && *q == '$') p = q + 1;
    }
  }
  *m = 0;
}

/* One conversion through the real snprintf. */
static int piece(char *buf, size_t cap, const char *m, const struct spec *s, int saved_errno) {
  int st[2], ns = 0;
  if (s->wpos) st[ns++] = s->width;
  if (s->ppos) st[ns++] = s->prec;
  void *ptr = s->heap && s->copy ? s->copy : s->v.p;
  __typeof__(snprintf) *f = REAL(snprintf);
#define PIECE_CALL(...)                                                        \
  (ns == 0 ? f(buf, cap, m, __VA_ARGS__) : ns == 1 ? f(buf, cap, m, st[0], __VA_ARGS__) : f(buf, cap, m, st[0], st[1], __VA_ARGS__))
  switch (s->cls) {
  case A_INT: return PIECE_CALL(s->v.i);
  case A_LONG: return PIECE_CALL(s->v.l);
  case A_DBL: return PIECE_CALL(s->v.d);
  case A_LDBL: return PIECE_CALL(s->v.ld);
  case A_PTR: return PIECE_CALL(ptr);
  default: /* %m: no argument, but errno as the caller left it */
    errno = saved_errno;
    return ns == 0 ? f(buf, cap, m, 0) : ns == 1 ? f(buf, cap, m, st[0]) : f(buf, cap, m, st[0], st[1]);
  }
#undef PIECE_CALL
}

static void store_count(struct spec *s, size_t count) {
  union {
    signed char hh;
    short h;
    int i;
    long l;
    long long ll;
    intmax_t j;
    size_t z;
    ptrdiff_t t;
  } u;
  size_t n;
  switch (s->len) {
  case L_HH: u.hh = (signed char)count, n = sizeof u.hh; break;
  case L_H: u.h = (short)count, n = sizeof u.h; break;
  case L_L: u.l = (long)count, n = sizeof u.l; break;
  case L_LL: case L_BIGL: u.ll = (long long)count, n = sizeof u.ll; break;
  case L_J: u.j = (intmax_t)count, n = sizeof u.j; break;
  case L_Z: u.z = count, n = sizeof u.z; break;
  case L_T: u.t = (ptrdiff_t)count, n = sizeof u.t; break;
  default: u.i = (int)count, n = sizeof u.i; break;
  }
  if (s->heap) amber_wrap_write("printf %n", s->v.p, &u, n);
  else memcpy(s->v.p, &u, n);
}

/* PIECES: the whole text into o; -1 (errno set) on an encoding error. */
static int build(struct job *j, struct out *o) {
  copy_heap_strings(j);
  const char *lit = j->fmt;
  char m[MAXSPEC + 2];
  out_add(o, "", 0);
  for (size_t i = 0; i < j->nspecs; i++) {
    struct spec *s = &j->specs[i];
    out_add(o, lit, (size_t)(s->start - lit));
    lit = s->end;
    if (s->conv == '%') {
      out_add(o, "%", 1);
      continue;
    }
    if (s->conv == 'n') {
      store_count(s, o->n);
      continue;
    }
    mini_format(s, m);
    int k = piece(o->p + o->n, o->cap - o->n, m, s, j->saved_errno);
    if (k < 0) return -1;
    if ((size_t)k >= o->cap - o->n) {
      out_room(o, (size_t)k);
      k = piece(o->p + o->n, o->cap - o->n, m, s, j->saved_errno);
      if (k < 0) return -1;
    }
    o->n += (size_t)k;
  }
  out_add(o, lit, strlen(lit));
  return 0;
}

/* INTO_HEAP: libc formats into volatile memory. */
static int format_volatile(struct job *j, va_list ap, struct out *o) {
  va_list a2;
  va_copy(a2, ap);
  int k = REAL(vsnprintf)(NULL, 0, j->fmt, a2);
  va_end(a2);
  if (k < 0) return -1;
  out_room(o, (size_t)k);
  REAL(vsnprintf)(o->p, (size_t)k + 1, j->fmt, ap);
  o->n = (size_t)k;
  return 0;
}

/* The text of a job that does not run FAST; -1 on error. */
static int text(struct job *j, int mode, va_list ap, struct out *o) {
  *o = (struct out){0};
  return mode == PIECES ? build(j, o) : format_volatile(j, ap, o);
}

static int finish(struct job *j, struct out *o, int r) {
  int e = errno;
  free(o->p);
  job_done(j);
  errno = r < 0 ? e : j->saved_errno;
  return r;
}

static int length(size_t n) {
  if (n > INT_MAX) {
    errno = EOVERFLOW;
    return -1;
  }
  return (int)n;
}

/* ---- the sinks ---- */

/* A stream or a file descriptor (never in the heap). */
static int to_file(const char *fn, FILE *f, int fd, int flag, const char *fmt, va_list ap) {
  /* Inside a region that may still be undone the text waits for its
   * commit (output.c), formatted now. */
  int held = 0;
  if (wrap_output_held()) {
    held = f ? wrap_output_stream_waits(f) : wrap_output_fd_waits(fd, 0);
    if (held < 0) return -1; /* EBADF */
  }
  amber_interpose_sync();
  struct job j;
  int mode = plan(&j, fn, fmt, ap, 0);
  if (mode == FAST && held) {
    char local[512];
    va_list a2;
    va_copy(a2, ap);
    int r = flag < 0 ? REAL(vsnprintf)(local, sizeof local, j.fmt, a2)
                     : REAL(__vsnprintf_chk)(local, sizeof local, flag, sizeof local, j.fmt, a2);
    va_end(a2);
    char *p = local;
    if (r >= (int)sizeof local) {
      p = malloc((size_t)r + 1);
      if (!p) oom();
      r = flag < 0 ? REAL(vsnprintf)(p, (size_t)r + 1, j.fmt, ap)
                   : REAL(__vsnprintf_chk)(p, (size_t)r + 1, flag, (size_t)r + 1, j.fmt, ap);
    }
    if (r > 0) wrap_output_add(f ? AMBER_OUT_STREAM : AMBER_OUT_FD, f, fd, 0, p, (size_t)r);
    if (p != local) free(p);
    struct out none = {0};
    return finish(&j, &none, r);
  }
  if (mode == FAST) {
    int r = f ? (flag < 0 ? REAL(vfprintf)(f, j.fmt, ap) : REAL(__vfprintf_chk)(f, flag, j.fmt, ap))
              : (flag < 0 ? REAL(vdprintf)(fd, j.fmt, ap) : REAL(__vdprintf_chk)(fd, flag, j.fmt, ap));
    struct out none = {0};
    return finish(&j, &none, r);
  }
  struct out o;
  int r = text(&j, mode, ap, &o);
  if (r == 0) {
    r = length(o.n);
    if (r >= 0 && held) wrap_output_add(f ? AMBER_OUT_STREAM : AMBER_OUT_FD, f, fd, 0, o.p, o.n);
    else if (r >= 0 && f && fwrite(o.p, 1, o.n, f) != o.n) r = -1;
    for (size_t done = 0; r >= 0 && !held && !f && done < o.n;) {
      ssize_t w = write(fd, o.p + done, o.n - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) r = -1;
      else done += (size_t)w;
    }
  }
  return finish(&j, &o, r);
}

/* A string: size bytes at s (at most; (size_t)-1 for sprintf). */
static int to_string(const char *fn, char *s, size_t size, int flag, size_t slen, const char *fmt, va_list ap, int bounded) {
  struct job j;
  int mode = plan(&j, fn, fmt, ap, size && wrap_touches(s, size == (size_t)-1 ? 1 : size));
  if (mode == FAST) {
    int r;
    if (bounded) r = flag < 0 ? REAL(vsnprintf)(s, size, j.fmt, ap) : REAL(__vsnprintf_chk)(s, size, flag, slen, j.fmt, ap);
    else r = flag < 0 ? REAL(vsprintf)(s, j.fmt, ap) : REAL(__vsprintf_chk)(s, flag, slen, j.fmt, ap);
    struct out none = {0};
    return finish(&j, &none, r);
  }
  struct out o;
  int r = text(&j, mode, ap, &o);
  if (r == 0) {
    r = length(o.n);
    size_t put = o.n + 1; /* with the NUL */
    if (bounded && put > size) put = size;
    if (!bounded && flag >= 0 && put > slen) __chk_fail();
    if (put) {
      o.p[put - 1] = 0;
      if (wrap_touches(s, put)) amber_wrap_write(fn, s, o.p, put);
      else memcpy(s, o.p, put);
    }
  }
  return finish(&j, &o, r);
}

static int to_alloc(const char *fn, char **strp, int flag, const char *fmt, va_list ap) {
  struct job j;
  int mode = plan(&j, fn, fmt, ap, 0);
  char *res = NULL;
  int r;
  struct out o = {0};
  if (mode == FAST) {
    r = flag < 0 ? REAL(vasprintf)(&res, j.fmt, ap) : REAL(__vasprintf_chk)(&res, flag, j.fmt, ap);
  } else {
    r = text(&j, mode, ap, &o);
    if (r == 0) r = length(o.n);
    if (r >= 0) {
      res = o.p; /* from malloc, as the caller expects */
      o.p = NULL;
    }
  }
  if (r < 0) res = NULL; /* glibc leaves *strp undefined; NULL is safer */
  if (wrap_touches(strp, sizeof *strp)) amber_wrap_write(fn, strp, &res, sizeof res);
  else *strp = res;
  return finish(&j, &o, r);
}

/* ---- the interceptors ---- */



int vfprintf(FILE *f, const char *fmt, va_list ap) {
  if (PASS()) return REAL(vfprintf)(f, fmt, ap);
  return to_file("vfprintf", f, -1, -1, fmt, ap);
}

int vprintf(const char *fmt, va_list ap) {
  if (PASS()) return REAL(vfprintf)(stdout, fmt, ap);
  return to_file("vprintf", stdout, -1, -1, fmt, ap);
}

int fprintf(FILE *f, const char *fmt, ...) {
  VARARGS(fmt, PASS() ? REAL(vfprintf)(f, fmt, ap) : to_file("fprintf", f, -1, -1, fmt, ap));
}

int printf(const char *fmt, ...) {
  VARARGS(fmt, PASS() ? REAL(vfprintf)(stdout, fmt, ap) : to_file("printf", stdout, -1, -1, fmt, ap));
}

int vdprintf(int fd, const char *fmt, va_list ap) {
  if (PASS()) return REAL(vdprintf)(fd, fmt, ap);
  return to_file("vdprintf", NULL, fd, -1, fmt, ap);
}

int dprintf(int fd, const char *fmt, ...) {
  VARARGS(fmt, PASS() ? REAL(vdprintf)(fd, fmt, ap) : to_file("dprintf", NULL, fd, -1, fmt, ap));
}

int vsprintf(char *s, const char *fmt, va_list ap) {
  if (PASS()) return REAL(vsprintf)(s, fmt, ap);
  return to_string("vsprintf", s, (size_t)-1, -1, 0, fmt, ap, 0);
}

int sprintf(char *s, const char *fmt, ...) {
  VARARGS(fmt, PASS() ? REAL(vsprintf)(s, fmt, ap) : to_string("sprintf", s, (size_t)-1, -1, 0, fmt, ap, 0));
}

int vsnprintf(char *s, size_t n, const char *fmt, va_list ap) {
  if (PASS()) return REAL(vsnprintf)(s, n, fmt, ap);
  return to_string("vsnprintf", s, n, -1, 0, fmt, ap, 1);
}

int snprintf(char *s, size_t n, const char *fmt, ...) {
  VARARGS(fmt, PASS() ? REAL(vsnprintf)(s, n, fmt, ap) : to_string("snprintf", s, n, -1, 0, fmt, ap, 1));
}

int vasprintf(char **strp, const char *fmt, va_list ap) {
  if (PASS()) return REAL(vasprintf)(strp, fmt, ap);
  return to_alloc("vasprintf", strp, -1, fmt, ap);
}

int asprintf(char **strp, const char *fmt, ...) {
  VARARGS(fmt, PASS() ? REAL(vasprintf)(strp, fmt, ap) : to_alloc("asprintf", strp, -1, fmt, ap));
}

/* _FORTIFY_SOURCE builds call these. */
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap) {
  if (PASS()) return REAL(__vfprintf_chk)(f, flag, fmt, ap);
  return to_file("vfprintf", f, -1, flag, fmt, ap);
}

int __vprintf_chk(int flag, const char *fmt, va_list ap) {
  if (PASS()) return REAL(__vfprintf_chk)(stdout, flag, fmt, ap);
  return to_file("vprintf", stdout, -1, flag, fmt, ap);
}

int __fprintf_chk(FILE *f, int flag, const char *fmt, ...) {
  VARARGS(fmt, PASS() ? REAL(__vfprintf_chk)(f, flag, fmt, ap) : to_file("fprintf", f, -1, flag, fmt, ap));
}

int __printf_chk(int flag, const char *fmt, ...) {
  VARARGS(fmt, PASS() ? REAL(__vfprintf_chk)(stdout, flag, fmt, ap) : to_file("printf", stdout, -1, flag, fmt, ap));
}

int __vdprintf_chk(int fd, int flag, const char *fmt, va_list ap) {
  if (PASS()) return REAL(__vdprintf_chk)(fd, flag, fmt, ap);
  return to_file("vdprintf", NULL, fd, flag, fmt, ap);
}

int __dprintf_chk(int fd, int flag, const char *fmt, ...) {
  VARARGS(fmt, PASS() ? REAL(__vdprintf_chk)(fd, flag, fmt, ap) : to_file("dprintf", NULL, fd, flag, fmt, ap));
}

int __vsprintf_chk(char *s, int flag, size_t slen, const char *fmt, va_list ap) {
  if (PASS()) return REAL(__vsprintf_chk)(s, flag, slen, fmt, ap);
  return to_string("vsprintf", s, (size_t)-1, flag, slen, fmt, ap, 0);
}

int __sprintf_chk(char *s, int flag, size_t slen, const char *fmt, ...) {
  VARARGS(fmt, PASS() ? REAL(__vsprintf_chk)(s, flag, slen, fmt, ap) : to_string("sprintf", s, (size_t)-1, flag, slen, fmt, ap, 0));
}

int __vsnprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, va_list ap) {
  if (PASS()) return REAL(__vsnprintf_chk)(s, n, flag, slen, fmt, ap);
  if (n > slen) __chk_fail();
  return to_string("vsnprintf", s, n, flag, slen, fmt, ap, 1);
}

int __snprintf_chk(char *s, size_t n, int flag, size_t slen, const char *fmt, ...) {
  if (!PASS() && n > slen) __chk_fail();
  VARARGS(fmt, PASS() ? REAL(__vsnprintf_chk)(s, n, flag, slen, fmt, ap) : to_string("snprintf", s, n, flag, slen, fmt, ap, 1));
}

int __vasprintf_chk(char **strp, int flag, const char *fmt, va_list ap) {
  if (PASS()) return REAL(__vasprintf_chk)(strp, flag, fmt, ap);
  return to_alloc("vasprintf", strp, flag, fmt, ap);
}

int __asprintf_chk(char **strp, int flag, const char *fmt, ...) {
  VARARGS(fmt, PASS() ? REAL(__vasprintf_chk)(strp, flag, fmt, ap) : to_alloc("asprintf", strp, flag, fmt, ap));
}
