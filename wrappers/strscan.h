/* Reading a string that starts in the heap, for the string interceptors
 * (str.c, strsearch.c, strcase.c, strtok.c, convert.c): heap bytes through
 * the engine in pieces that end on a PIECE boundary and stay inside the
 * heap window, so a scan reads few bytes past the string's end and never
 * leaves the heap mapping; a string that runs past the window's end goes on
 * in place.  Used inside amber_interpose_read_tx (or write_tx): all the
 * pieces of one call are one snapshot, inside a region the region's view. */
#ifndef AMBER_WRAP_STRSCAN_H
#define AMBER_WRAP_STRSCAN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wrap.h"

#define WRAP_PIECE 256u

/* ---- one byte at a time (comparisons) ---- */

struct wrap_cursor {
  const unsigned char *p; /* next byte to fetch */
  unsigned char buf[WRAP_PIECE];
  size_t have, pos;
};

static inline unsigned char wrap_next_byte(struct wrap_cursor *c) {
  if (c->pos < c->have) return c->buf[c->pos++];
  if (!wrap_in_heap(c->p)) return *c->p++; /* volatile: never past its end */
  uintptr_t a = (uintptr_t)c->p, e = __amber_heap_base + __amber_heap_size;
  size_t k = WRAP_PIECE - (a & (WRAP_PIECE - 1));
  if (k > e - a) k = e - a;
  amber_interpose_load(c->buf, c->p, k);
  c->p += k;
  c->have = k;
  c->pos = 1;
  return c->buf[0];
}

/* ---- a piece at a time (searches) ---- */

struct wrap_scan {
  const char *p; /* the next piece starts here */
  size_t left;   /* bytes the caller still wants (strn* bounds; SIZE_MAX: all) */
  char buf[WRAP_PIECE];
};

/* The next piece of the string: *n bytes at the result (the NUL not
 * counted), at most WRAP_PIECE; *end is set when the string (or the bound)
 * ends in this piece.  A volatile rest of the string (past the window's
 * end) is returned in place. */
static inline const char *wrap_scan_next(struct wrap_scan *c, size_t *n, int *end) {
  const char *p = c->p;
  size_t k = c->left < WRAP_PIECE ? c->left : WRAP_PIECE;
  const char *out = p;
  if (!wrap_in_heap(p)) {
    *n = strnlen(p, k); /* the C library's (--wrap, real.c) */
  } else {
    uintptr_t a = (uintptr_t)p, e = __amber_heap_base + __amber_heap_size;
    size_t to_piece = WRAP_PIECE - (a & (WRAP_PIECE - 1));
    if (k > to_piece) k = to_piece;
    if (k > e - a) k = e - a;
    amber_interpose_load(c->buf, p, k);
    const char *z = memchr(c->buf, 0, k);
    *n = z ? (size_t)(z - c->buf) : k;
    out = c->buf;
  }
  c->left -= *n;
  *end = *n < k || c->left == 0;
  c->p = p + *n;
  return out;
}

/* A string argument the call reads whole and small (a needle, a set of
 * delimiters): itself when volatile, else a volatile copy from malloc
 * (read in a snapshot of its own); NULL when out of memory.  Release it
 * with wrap_arg_free. */
static inline const char *wrap_arg(const char *s) {
  return wrap_in_heap(s) ? amber_wrap_strndup(s, SIZE_MAX, NULL) : s;
}

static inline void wrap_arg_free(const char *orig, const char *copy) {
  if (copy != orig) free((void *)copy);
}

/* strsearch.c: the length of the initial span of s (heap or not) made of
 * bytes in `set` (accept) or not in it (reject), read in one snapshot;
 * *stopped: a byte ended it, not the NUL.  fn names the caller. */
size_t amber_wrap_span(const char *fn, const char *s, const char *set, int accept, int *stopped);

#endif
