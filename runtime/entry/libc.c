/* libc functions called inside regions, rewritten by the pass to these
 * wrappers (same signatures and results as libc).  Writes to persistent
 * memory go through the transaction; reads too unless the engine allows
 * reading the heap in place in a transaction, and then at the alias
 * (amber_heap_reach): results that point into a string are given back
 * canonical.  Outside regions (the pass rewrites libc calls there too) every
 * heap read goes through the engine. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "tx/alloc.h"
#include "base/diag.h"
#include "tx/op.h"
#include "tx/tx.h"
#include "code.h"

#define CHUNK 256

/* Volatile memory is read in place, except while a transaction captures
 * or replays its inputs, or its engine isolates its reads of ordinary
 * memory: then every byte goes through __amber_load*.  Heap memory in place
 * only inside a transaction of a direct_reads engine: outside regions the
 * engine finds the latest commit (access.c). */
static inline int direct(const void *p) {
  if (amber_in_heap(p)) {
    struct amber_thread *t = amber_thread();
    amber_tx_touch(t); /* the caller reads p next (tx/tx.h) */
    return amber_tx_engine->direct_reads && (t->depth || t->batch);
  }
  struct amber_thread *t = amber_self;
  if (!t || !t->depth) return 1;
  amber_tx_touch(t); /* vguard is the begun engine's, and the caller reads p next */
  if (t->op >= AMBER_OP_CAPTURE) return 0;
  return !(t->vguard & AMBER_VGUARD_READS) || amber_tx_own_frame(t, p);
}

/* A byte-at-a-time reader of s that, off the direct path, asks the engine
 * for the rest of each aligned 8-byte word at once: one access (and one
 * read-set entry, which the engines keep per word or block anyway) instead
 * of up to eight.  STAMP's genome compares its segments with strncmp in
 * every transaction, one engine read a byte (issue 22).  The bytes past the
 * end of a string or buffer that share its last aligned word are in the
 * same page, hence readable; direct memory is still read a byte at a time,
 * so nothing the program did not ask for is touched in place. */
struct rd {
  const unsigned char *p; /* the next byte to read */
  unsigned at, k;         /* buf[at..k) are the bytes from p on */
  unsigned char buf[8];
};
static inline unsigned char rd_next(struct rd *r) {
  if (r->at == r->k) {
    r->at = 0;
    if (direct(r->p)) {
      r->k = 1;
      r->buf[0] = *(const unsigned char *)amber_heap_reach(r->p);
    } else {
      r->k = 8 - (unsigned)((uintptr_t)r->p & 7);
      __amber_loadn(r->buf, r->p, r->k);
    }
  }
  r->p++;
  return r->buf[r->at++];
}
#define RD(s) {(const unsigned char *)(s), 0, 0, {0}}

/* r, found by a libc function in amber_heap_reach(s), as the program sees it. */
static inline void *seen(const void *s, void *r) {
  return r && amber_in_heap(s) ? amber_heap_canonical(r) : r;
}

#define R(p) amber_heap_reach(p)

void *__amber_memcpy(void *dst, const void *src, size_t n) {
  if (!n) return dst;
  if (amber_in_heap(dst)) {
    /* Code addresses copied into the heap become handles (entry/code.c);
     * handles copied within the heap stay handles. */
    int from_volatile = !amber_in_heap(src);
    if (direct(src) && from_volatile && !(n >= 8 && amber_code_may_hold(src, dst, n))) {
      __amber_storen(dst, src, n);
    } else {
      /* src may be readable only through __amber_loadn (a replay's
       * recorded bytes, an isolated read): look at the copy. */
      char buf[CHUNK];
      for (size_t i = 0; i < n; i += CHUNK) {
        size_t k = n - i < CHUNK ? n - i : CHUNK;
        __amber_loadn(buf, (const char *)src + i, k);
        if (from_volatile && k >= 8 && amber_code_may_hold(buf, (char *)dst + i, k))
          amber_code_fix_stored(buf, (char *)dst + i, k);
        __amber_storen((char *)dst + i, buf, k);
      }
    }
    return dst;
  }
  /* Into volatile memory: replay drops it (later loads of dst replay their
   * recorded bytes); a volatile source needs no capture for the same reason. */
  struct amber_thread *t = amber_thread();
  if (t->op == AMBER_OP_REPLAY) return dst;
  if (!t->depth) {
    if (!amber_in_heap(src)) return memcpy(dst, src, n);
    __amber_loadn(dst, src, n);
    amber_code_fix_loaded(dst, src, n); /* handles become this process's code addresses */
    return dst;
  }
  amber_tx_vclaim(t, dst, n);
  if (amber_in_heap(src)) {
    __amber_loadn(dst, src, n);
    amber_code_fix_loaded(dst, src, n);
  } else {
    amber_tx_vread(t, src, dst, n);
  }
  return dst;
}

/* memmove between two ordinary buffers in a transaction whose engine
 * isolates ordinary reads: through a buffer, in the direction that never
 * reads a byte already written (nothing captured: see __amber_memcpy). */
static void vmove(struct amber_thread *t, char *dst, const char *src, size_t n) {
  char buf[CHUNK];
  if (dst < src) {
    for (size_t i = 0; i < n; i += CHUNK) {
      size_t k = n - i < CHUNK ? n - i : CHUNK;
      amber_tx_vread(t, src + i, buf, k);
      memcpy(dst + i, buf, k);
    }
  } else {
    for (size_t end = n; end > 0;) {
      size_t k = end < CHUNK ? end : CHUNK;
      end -= k;
      amber_tx_vread(t, src + end, buf, k);
      memcpy(dst + end, buf, k);
    }
  }
}

void *__amber_memmove(void *dst, const void *src, size_t n) {
  if (!n || dst == src) return dst;
  if (!amber_in_heap(dst) && !amber_in_heap(src)) {
    struct amber_thread *t = amber_thread();
    if (t->op == AMBER_OP_REPLAY) return dst;
    if (!t->depth) return memmove(dst, src, n);
    amber_tx_vclaim(t, dst, n);
    if (!(t->vguard & AMBER_VGUARD_READS)) return memmove(dst, src, n);
    vmove(t, dst, src, n);
    return dst;
  }
  if ((const char *)dst + n <= (const char *)src || (const char *)src + n <= (const char *)dst)
    return __amber_memcpy(dst, src, n);
  /* Overlapping: copy in the direction that never reads a written byte. */
  char buf[CHUNK];
  if (dst < src) {
    for (size_t i = 0; i < n; i += CHUNK) {
      size_t k = n - i < CHUNK ? n - i : CHUNK;
      __amber_loadn(buf, (const char *)src + i, k);
      __amber_storen((char *)dst + i, buf, k);
    }
  } else {
    for (size_t end = n; end > 0;) {
      size_t k = end < CHUNK ? end : CHUNK;
      end -= k;
      __amber_loadn(buf, (const char *)src + end, k);
      __amber_storen((char *)dst + end, buf, k);
    }
  }
  return dst;
}

void *__amber_memset(void *dst, int c, size_t n) {
  if (!n) return dst;
  if (!amber_in_heap(dst)) {
    struct amber_thread *t = amber_thread();
    if (t->op == AMBER_OP_REPLAY) return dst;
    if (t->depth) amber_tx_vclaim(t, dst, n);
    return memset(dst, c, n);
  }
  char buf[CHUNK];
  memset(buf, c, sizeof buf);
  for (size_t i = 0; i < n; i += CHUNK) __amber_storen((char *)dst + i, buf, n - i < CHUNK ? n - i : CHUNK);
  return dst;
}

int __amber_memcmp(const void *a, const void *b, size_t n) {
  if (direct(a) && direct(b)) return memcmp(R(a), R(b), n);
  struct rd x = RD(a), y = RD(b);
  for (size_t i = 0; i < n; i++) {
    int d = (int)rd_next(&x) - (int)rd_next(&y);
    if (d) return d;
  }
  return 0;
}

void *__amber_memchr(const void *s, int c, size_t n) {
  if (direct(s)) return seen(s, memchr(R(s), c, n));
  struct rd r = RD(s);
  for (size_t i = 0; i < n; i++)
    if (rd_next(&r) == (unsigned char)c) return (char *)s + i;
  return NULL;
}

size_t __amber_strnlen(const char *s, size_t max) {
  if (direct(s)) return strnlen(R(s), max);
  size_t i = 0;
  struct rd r = RD(s);
  while (i < max && rd_next(&r)) i++;
  return i;
}

size_t __amber_strlen(const char *s) { return direct(s) ? strlen(R(s)) : __amber_strnlen(s, (size_t)-1); }

int __amber_strncmp(const char *a, const char *b, size_t n) {
  if (direct(a) && direct(b)) return strncmp(R(a), R(b), n);
  struct rd ra = RD(a), rb = RD(b);
  for (size_t i = 0; i < n; i++) {
    unsigned char x = rd_next(&ra), y = rd_next(&rb);
    if (x != y) return (int)x - (int)y;
    if (!x) return 0;
  }
  return 0;
}

int __amber_strcmp(const char *a, const char *b) {
  if (direct(a) && direct(b)) return strcmp(R(a), R(b));
  return __amber_strncmp(a, b, (size_t)-1);
}

char *__amber_strchr(const char *s, int c) {
  if (direct(s)) return seen(s, strchr(R(s), c));
  struct rd r = RD(s);
  for (size_t i = 0;; i++) {
    unsigned char x = rd_next(&r);
    if (x == (unsigned char)c) return (char *)s + i;
    if (!x) return NULL;
  }
}

char *__amber_strrchr(const char *s, int c) {
  if (direct(s)) return seen(s, strrchr(R(s), c));
  char *last = NULL;
  struct rd r = RD(s);
  for (size_t i = 0;; i++) {
    unsigned char x = rd_next(&r);
    if (x == (unsigned char)c) last = (char *)s + i;
    if (!x) return last;
  }
}

char *__amber_strcpy(char *dst, const char *src) {
  __amber_memcpy(dst, src, __amber_strlen(src) + 1);
  return dst;
}

char *__amber_strncpy(char *dst, const char *src, size_t n) {
  size_t len = __amber_strnlen(src, n);
  __amber_memcpy(dst, src, len);
  if (len < n) __amber_memset(dst + len, 0, n - len);
  return dst;
}

char *__amber_strcat(char *dst, const char *src) {
  __amber_strcpy(dst + __amber_strlen(dst), src);
  return dst;
}

char *__amber_strncat(char *dst, const char *src, size_t n) {
  size_t dl = __amber_strlen(dst), sl = __amber_strnlen(src, n);
  __amber_memcpy(dst + dl, src, sl);
  __amber_store1(dst + dl + sl, 0);
  return dst;
}

/* ---- allocation: persistent inside regions ---- */

static struct amber_thread *writer_tx(void) {
  struct amber_thread *t = amber_thread();
  if (t->depth && !t->writer) amber_tx_restart(t, AMBER_ABORT_UPGRADE);
  return t;
}

void *__amber_malloc(size_t n) {
  struct amber_thread *t = writer_tx();
  if (!t->depth) return malloc(n);
  return amber_palloc(t, n);
}

void *__amber_calloc(size_t n, size_t size) {
  if (size && n > (size_t)-1 / size) return NULL;
  struct amber_thread *t = writer_tx();
  if (!t->depth) return calloc(n, size);
  void *p = amber_palloc(t, n * size);
  __amber_memset(p, 0, n * size);
  return p;
}

static void free_volatile(struct amber_thread *t, void *p) {
  if (t->op == AMBER_OP_REPLAY) return; /* p is the writer process's */
  if (!t->depth) {
    free(p);
    return;
  }
  /* The transaction may still abort (and its free must not happen then). */
  if (t->nvfree == t->capvfree) {
    size_t cap = t->capvfree ? t->capvfree * 2 : 16;
    void **v = realloc(t->vfree, cap * sizeof *v);
    if (!v) amber_fatal("out of memory for deferred frees");
    t->vfree = v;
    t->capvfree = cap;
  }
  t->vfree[t->nvfree++] = p;
}

void __amber_free(void *p) {
  if (!p) return;
  struct amber_thread *t = amber_thread();
  if (!amber_in_heap(p)) {
    free_volatile(t, p);
    return;
  }
  t = writer_tx();
  if (!t->depth) {
    free(p); /* the interposed free runs its own transaction */
    return;
  }
  amber_pfree(t, p);
}

void *__amber_realloc(void *p, size_t n) {
  if (!p) return __amber_malloc(n);
  if (n == 0) {
    __amber_free(p);
    return NULL;
  }
  struct amber_thread *t = writer_tx();
  if (!t->depth) return realloc(p, n);
  size_t old;
  if (amber_in_heap(p)) {
    old = amber_palloc_size(t, p);
    if (!old) amber_fatal("realloc(%p): not a live persistent allocation", p);
  } else if (t->op == AMBER_OP_REPLAY) {
    amber_op_take(t, &old, sizeof old);
  } else {
    old = malloc_usable_size(p);
    if (t->op == AMBER_OP_CAPTURE) amber_op_put(t, &old, sizeof old);
  }
  void *q = amber_palloc(t, n);
  __amber_memcpy(q, p, old < n ? old : n);
  __amber_free(p);
  return q;
}

char *__amber_strdup(const char *s) {
  size_t n = __amber_strlen(s) + 1;
  char *p = __amber_malloc(n);
  return __amber_memcpy(p, s, n);
}

char *__amber_strndup(const char *s, size_t max) {
  size_t n = __amber_strnlen(s, max);
  char *p = __amber_malloc(n + 1);
  __amber_memcpy(p, s, n);
  __amber_store1(p + n, 0);
  return p;
}
