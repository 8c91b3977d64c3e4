/* Tokenizers on heap strings, by code amber never compiled: strtok
 * strtok_r __strtok_r strsep.  The string is read through the engine only
 * as far as the token goes (amber_wrap_span); the NUL that ends a token,
 * and the saved position when it lives in the heap, are one write (a
 * transaction of its own, or part of the running region's).  The token
 * returned points into the caller's string. */
#include <string.h>

#include "strscan.h"
#include "wrap.h"

WRAP_REAL(strtok_r)
WRAP_REAL(__strtok_r)
WRAP_REAL(strsep)

/* strtok's saved position: as glibc's, one per process. */
static char *strtok_olds;

/* A char * that may live in the heap. */
static char *get_ptr(char *const *where) {
  char *v;
  if (!wrap_touches(where, sizeof *where)) return *where;
  amber_wrap_read(&v, where, sizeof v);
  return v;
}

struct cut_req {
  char *nul;    /* where the token's NUL goes (in the heap), or NULL */
  char **where; /* the saved position, or NULL */
  char *val;
};

static void cut_fn(void *arg) {
  struct cut_req *r = arg;
  if (r->nul) __amber_memset(r->nul, 0, 1);
  if (r->where) __amber_memmove(r->where, &r->val, sizeof r->val);
}

/* Ends the token at nul (may be NULL) and stores val at *where: the heap
 * parts in one write. */
static void cut(const char *fn, char *nul, char **where, char *val) {
  int heap_where = where && wrap_touches(where, sizeof *where);
  if (where && !heap_where) *where = val;
  if (nul && !wrap_in_heap(nul)) {
    *nul = 0;
    nul = NULL;
  }
  if (!nul && !heap_where) return;
  struct cut_req r = {nul, heap_where ? where : NULL, val};
  amber_interpose_write_tx(fn, nul ? (const void *)nul : (const void *)where, cut_fn, &r);
}

/* glibc's strtok_r, with the string in the heap. */
static char *heap_tok(const char *fn, char *p, const char *delim, char **save) {
  int stopped;
  char *start = p + amber_wrap_span(fn, p, delim, 1, &stopped);
  if (!stopped) {
    cut(fn, NULL, save, start);
    return NULL;
  }
  char *end = start + amber_wrap_span(fn, start, delim, 0, &stopped);
  if (!stopped) cut(fn, NULL, save, end);
  else cut(fn, end, save, end + 1);
  return start;
}

static char *tok(const char *fn, char *s, const char *delim, char **save) {
  char *p = s ? s : get_ptr(save);
  if (wrap_in_heap(p)) return heap_tok(fn, p, delim, save);
  /* A volatile string: the C library, with a heap delimiter set copied out
   * and a heap position read and written through the engine. */
  const char *d = wrap_arg(delim);
  if (!d) amber_wrap_nomem(fn, delim, 0);
  char *res;
  if (wrap_touches(save, sizeof *save)) {
    char *v = p;
    res = REAL(strtok_r)(p, d, &v);
    cut(fn, NULL, save, v);
  } else {
    res = REAL(strtok_r)(p, d, save);
  }
  wrap_arg_free(delim, d);
  return res;
}

#define TOUCHES_TOK(s, delim, save)                                                                 \
  __builtin_expect(wrap_in_heap(s) || wrap_in_heap(delim) || wrap_touches(save, sizeof *(save)) || \
                       (!(s) && wrap_in_heap(*(save))),                                            \
                   0)

char *strtok_r(char *s, const char *delim, char **save) {
  if (!TOUCHES_TOK(s, delim, save)) return REAL(strtok_r)(s, delim, save);
  return tok("strtok_r", s, delim, save);
}

char *__strtok_r(char *s, const char *delim, char **save) {
  if (!TOUCHES_TOK(s, delim, save)) return REAL(__strtok_r)(s, delim, save);
  return tok("strtok_r", s, delim, save);
}

/* strtok is strtok_r on a saved position of the interceptor's own, so that
 * a tokenization may move between heap and volatile strings. */
char *strtok(char *s, const char *delim) {
  if (!TOUCHES_TOK(s, delim, &strtok_olds)) return REAL(strtok_r)(s, delim, &strtok_olds);
  return tok("strtok", s, delim, &strtok_olds);
}

char *strsep(char **sp, const char *delim) {
  int heap_sp = wrap_touches(sp, sizeof *sp);
  if (__builtin_expect(!heap_sp && !wrap_in_heap(*sp) && !wrap_in_heap(delim), 1)) return REAL(strsep)(sp, delim);
  char *begin = get_ptr(sp);
  if (!begin) return NULL;
  int stopped;
  char *end = begin + amber_wrap_span("strsep", begin, delim, 0, &stopped);
  if (stopped) cut("strsep", end, sp, end + 1);
  else cut("strsep", NULL, sp, NULL);
  return begin;
}
