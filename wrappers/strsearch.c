/* Searches in heap strings and buffers by code amber never compiled:
 * strstr strcasestr memmem strspn strcspn strpbrk strchrnul index rindex
 * rawmemchr memrchr basename.  The searched string is read through the
 * engine piece by piece (strscan.h), all of one call in one snapshot, and
 * only as far as the search goes; a result points into the caller's
 * string.  A needle or set that lives in the heap is copied out first. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strscan.h"
#include "wrap.h"

WRAP_REAL(strstr)
WRAP_REAL(strcasestr)
WRAP_REAL(memmem)
WRAP_REAL(strspn)
WRAP_REAL(strcspn)
WRAP_REAL(strpbrk)
WRAP_REAL(strchrnul)
WRAP_REAL(index)
WRAP_REAL(rindex)
WRAP_REAL(rawmemchr)
WRAP_REAL(memrchr)
WRAP_REAL(basename)
WRAP_REAL(strnlen)

/* ---- strstr, strcasestr: a window of the haystack that keeps the last
 * m - 1 bytes of the previous pieces, so a match across pieces is found ---- */

struct find_req {
  const char *h, *needle;
  size_t m;
  int icase;
  char *win; /* m - 1 + WRAP_PIECE + 1 bytes */
  const char *found;
};

static void find_fn(void *arg) {
  struct find_req *r = arg;
  struct wrap_scan c = {.p = r->h, .left = SIZE_MAX};
  size_t carry = 0, off = 0; /* win[0] is the haystack's byte at off */
  r->found = NULL;
  for (;;) {
    size_t n;
    int end;
    const char *piece = wrap_scan_next(&c, &n, &end);
    memcpy(r->win + carry, piece, n);
    size_t total = carry + n;
    r->win[total] = 0;
    const char *f = r->icase ? REAL(strcasestr)(r->win, r->needle) : REAL(strstr)(r->win, r->needle);
    if (f) {
      r->found = r->h + off + (size_t)(f - r->win);
      return;
    }
    if (end) return;
    carry = total < r->m - 1 ? total : r->m - 1;
    memmove(r->win, r->win + total - carry, carry);
    off += total - carry;
  }
}

/* The window on the stack up to this size (a needle under 768 bytes):
 * STAMP's intruder calls strstr on a heap packet once per signature of its
 * dictionary, and a malloc and free per call were a tenth of its time. */
#define FIND_STACK_WIN 1024u

static char *heap_find(const char *fn, const char *h, const char *needle, int icase) {
  /* The frequent case first, with nothing but the checks it needs: a heap
   * haystack, a volatile needle, the thread's view in place (intruder's
   * detector: one call per signature on each packet).  The needle needs no
   * copy and no length (the real function returns the haystack for an
   * empty one, as the general path does). */
  if (wrap_in_heap(h) && !wrap_in_heap(needle)) {
    amber_interpose_check_usable(fn, h);
    const char *a = amber_interpose_in_place(h);
    size_t room = __amber_heap_base + __amber_heap_size - (uintptr_t)h;
    if (a && REAL(strnlen)(a, room) < room) {
      const char *f = icase ? REAL(strcasestr)(a, needle) : REAL(strstr)(a, needle);
      return f ? (char *)h + (f - a) : NULL;
    }
  }
  const char *nd = wrap_arg(needle);
  if (!nd) amber_wrap_nomem(fn, needle, 0);
  char *res;
  if (!wrap_in_heap(h)) {
    res = icase ? REAL(strcasestr)(h, nd) : REAL(strstr)(h, nd);
  } else {
    amber_interpose_check_usable(fn, h);
    struct find_req r = {.h = h, .needle = nd, .m = strlen(nd), .icase = icase};
    if (r.m == 0) {
      wrap_arg_free(needle, nd);
      return (char *)h;
    }
    /* This thread's view of the heap is its data area (a romulus stray
     * batch, as in intruder's detector after its preprocessor's stores):
     * the real search in place, once the string is known to end inside
     * the heap (the real function may not run past its end); the result
     * is given back at the program's address. */
    const char *a = amber_interpose_in_place(h);
    size_t room = __amber_heap_base + __amber_heap_size - (uintptr_t)h;
    if (a && strnlen(a, room) < room) {
      const char *f = icase ? REAL(strcasestr)(a, nd) : REAL(strstr)(a, nd);
      wrap_arg_free(needle, nd);
      return f ? (char *)h + (f - a) : NULL;
    }
    char stack_win[FIND_STACK_WIN];
    r.win = r.m + WRAP_PIECE <= sizeof stack_win ? stack_win : malloc(r.m + WRAP_PIECE);
    if (!r.win) amber_wrap_nomem(fn, h, r.m + WRAP_PIECE);
    amber_interpose_read_tx(find_fn, &r);
    if (r.win != stack_win) free(r.win);
    res = (char *)r.found;
  }
  wrap_arg_free(needle, nd);
  return res;
}

char *strstr(const char *h, const char *needle) {
  if (__builtin_expect(!wrap_in_heap(h) && !wrap_in_heap(needle), 1)) return REAL(strstr)(h, needle);
  return heap_find("strstr", h, needle, 0);
}

char *strcasestr(const char *h, const char *needle) {
  if (__builtin_expect(!wrap_in_heap(h) && !wrap_in_heap(needle), 1)) return REAL(strcasestr)(h, needle);
  return heap_find("strcasestr", h, needle, 1);
}

/* ---- memmem: the same over a bounded haystack, in chunks ---- */

#define CHUNK 4096u

struct mem_req {
  const char *h;
  size_t hl;
  const char *needle;
  size_t m;
  char *win; /* m - 1 + CHUNK bytes */
  const void *found;
};

static void mem_fn(void *arg) {
  struct mem_req *r = arg;
  size_t carry = 0, pos = 0; /* win[0] is the haystack's byte at pos - carry */
  r->found = NULL;
  while (pos < r->hl) {
    size_t k = r->hl - pos < CHUNK ? r->hl - pos : CHUNK;
    amber_interpose_load(r->win + carry, r->h + pos, k);
    size_t total = carry + k;
    const char *f = REAL(memmem)(r->win, total, r->needle, r->m);
    if (f) {
      r->found = r->h + pos - carry + (size_t)(f - r->win);
      return;
    }
    pos += k;
    carry = total < r->m - 1 ? total : r->m - 1;
    memmove(r->win, r->win + total - carry, carry);
  }
}

void *memmem(const void *h, size_t hl, const void *needle, size_t m) {
  if (__builtin_expect(!wrap_touches(h, hl) && !wrap_touches(needle, m), 1)) return REAL(memmem)(h, hl, needle, m);
  amber_interpose_check_usable("memmem", wrap_touches(h, hl) ? h : needle);
  if (m == 0) return (void *)h;
  if (m > hl) return NULL;
  char *nd = malloc(m);
  if (!nd) amber_wrap_nomem("memmem", needle, m);
  amber_wrap_read(nd, needle, m);
  void *res;
  if (!wrap_touches(h, hl)) {
    res = REAL(memmem)(h, hl, nd, m);
  } else {
    struct mem_req r = {.h = h, .hl = hl, .needle = nd, .m = m, .win = malloc(m + CHUNK)};
    if (!r.win) amber_wrap_nomem("memmem", h, m + CHUNK);
    amber_interpose_read_tx(mem_fn, &r);
    free(r.win);
    res = (void *)r.found;
  }
  free(nd);
  return res;
}

/* ---- strspn, strcspn, strpbrk: a table of the set, then one pass ---- */

struct span_req {
  const char *s;
  unsigned char in[256]; /* the bytes that continue the span */
  size_t len;
  int stopped; /* the span ended before the NUL */
};

static void span_fn(void *arg) {
  struct span_req *r = arg;
  struct wrap_scan c = {.p = r->s, .left = SIZE_MAX};
  r->len = 0;
  r->stopped = 0;
  for (;;) {
    size_t n;
    int end;
    const unsigned char *piece = (const unsigned char *)wrap_scan_next(&c, &n, &end);
    for (size_t i = 0; i < n; i++)
      if (!r->in[piece[i]]) {
        r->len += i;
        r->stopped = 1;
        return;
      }
    r->len += n;
    if (end) return;
  }
}

size_t amber_wrap_span(const char *fn, const char *s, const char *set, int accept, int *stopped) {
  const char *st = wrap_arg(set);
  if (!st) amber_wrap_nomem(fn, set, 0);
  struct span_req r = {.s = s};
  if (!accept) memset(r.in, 1, sizeof r.in);
  for (const unsigned char *p = (const unsigned char *)st; *p; p++) r.in[*p] = (unsigned char)accept;
  r.in[0] = 0;
  wrap_arg_free(set, st);
  amber_interpose_check_usable(fn, s);
  amber_interpose_read_tx(span_fn, &r);
  *stopped = r.stopped;
  return r.len;
}

size_t strspn(const char *s, const char *accept) {
  if (__builtin_expect(!wrap_in_heap(s) && !wrap_in_heap(accept), 1)) return REAL(strspn)(s, accept);
  int stopped;
  return amber_wrap_span("strspn", s, accept, 1, &stopped);
}

size_t strcspn(const char *s, const char *reject) {
  if (__builtin_expect(!wrap_in_heap(s) && !wrap_in_heap(reject), 1)) return REAL(strcspn)(s, reject);
  int stopped;
  return amber_wrap_span("strcspn", s, reject, 0, &stopped);
}

char *strpbrk(const char *s, const char *accept) {
  if (__builtin_expect(!wrap_in_heap(s) && !wrap_in_heap(accept), 1)) return REAL(strpbrk)(s, accept);
  int stopped;
  size_t n = amber_wrap_span("strpbrk", s, accept, 0, &stopped);
  return stopped ? (char *)s + n : NULL;
}

/* ---- strchrnul, index, rindex, basename: one pass for a byte ---- */

struct chr_req {
  const char *s;
  unsigned char c;
  int last;
  const char *found, *nul;
};

static void chr_fn(void *arg) {
  struct chr_req *r = arg;
  struct wrap_scan c = {.p = r->s, .left = SIZE_MAX};
  size_t off = 0;
  r->found = NULL;
  for (;;) {
    size_t n;
    int end;
    const char *piece = wrap_scan_next(&c, &n, &end);
    const char *f = r->last ? REAL(memrchr)(piece, r->c, n) : memchr(piece, r->c, n);
    if (f) {
      r->found = r->s + off + (size_t)(f - piece);
      if (!r->last) return;
    }
    off += n;
    if (end) break;
  }
  r->nul = r->s + off;
}

/* The first (last) c in s; c == 0 finds the NUL.  When c is not found,
 * *nul gets the NUL's address. */
static char *heap_chr(const char *fn, const char *s, int c, int last, const char **nul) {
  amber_interpose_check_usable(fn, s);
  struct chr_req r = {.s = s, .c = (unsigned char)c, .last = last};
  amber_interpose_read_tx(chr_fn, &r);
  if (!r.c) return (char *)r.nul;
  if (nul && !r.found) *nul = r.nul;
  return (char *)r.found;
}

char *strchrnul(const char *s, int c) {
  if (__builtin_expect(!wrap_in_heap(s), 1)) return REAL(strchrnul)(s, c);
  const char *nul;
  char *f = heap_chr("strchrnul", s, c, 0, &nul);
  return f ? f : (char *)nul;
}

char *index(const char *s, int c) {
  if (__builtin_expect(!wrap_in_heap(s), 1)) return REAL(index)(s, c);
  return heap_chr("index", s, c, 0, NULL);
}

char *rindex(const char *s, int c) {
  if (__builtin_expect(!wrap_in_heap(s), 1)) return REAL(rindex)(s, c);
  return heap_chr("rindex", s, c, 1, NULL);
}

/* GNU basename (string.h): the part after the last '/'; it writes nothing. */
char *basename(const char *s) {
  if (__builtin_expect(!wrap_in_heap(s), 1)) return REAL(basename)(s);
  char *slash = heap_chr("basename", s, '/', 1, NULL);
  return slash ? slash + 1 : (char *)s;
}

/* ---- rawmemchr, memrchr: raw bytes, no NUL stop ---- */

struct raw_req {
  const unsigned char *s;
  size_t n; /* memrchr: the length */
  int c;
  const void *found;
};

static void rawchr_fn(void *arg) {
  struct raw_req *r = arg;
  unsigned char buf[WRAP_PIECE];
  for (const unsigned char *p = r->s;;) {
    size_t k = WRAP_PIECE - ((uintptr_t)p & (WRAP_PIECE - 1));
    amber_interpose_load(buf, p, k);
    const unsigned char *f = memchr(buf, r->c, k);
    if (f) {
      r->found = p + (f - buf);
      return;
    }
    p += k;
  }
}

void *rawmemchr(const void *s, int c) {
  if (__builtin_expect(!wrap_in_heap(s), 1)) return REAL(rawmemchr)(s, c);
  amber_interpose_check_usable("rawmemchr", s);
  struct raw_req r = {.s = s, .c = (unsigned char)c};
  amber_interpose_read_tx(rawchr_fn, &r);
  return (void *)r.found;
}

static void rchr_fn(void *arg) {
  struct raw_req *r = arg;
  unsigned char buf[WRAP_PIECE];
  r->found = NULL;
  for (size_t end = r->n; end > 0;) {
    size_t k = end < WRAP_PIECE ? end : WRAP_PIECE;
    amber_interpose_load(buf, r->s + end - k, k);
    const unsigned char *f = REAL(memrchr)(buf, r->c, k);
    if (f) {
      r->found = r->s + end - k + (size_t)(f - buf);
      return;
    }
    end -= k;
  }
}

void *memrchr(const void *s, int c, size_t n) {
  if (__builtin_expect(!wrap_touches(s, n), 1)) return REAL(memrchr)(s, c, n);
  amber_interpose_check_usable("memrchr", s);
  struct raw_req r = {.s = s, .n = n, .c = (unsigned char)c};
  amber_interpose_read_tx(rchr_fn, &r);
  return (void *)r.found;
}
