/* The interceptors' common part: resolving the real functions, and reading
 * and writing the heap for code amber never compiled (docs/wrappers.md). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/diag.h"
#include "tx/tx.h"
#include "wrap.h"

WRAP_REAL(memmove)
WRAP_REAL(strnlen)

static __thread int resolving; /* dlsym may allocate, and so call back into us */

void *amber_wrap_resolve(const char *name, void *self) {
  if (resolving) return NULL;
  resolving = 1;
  void *f = dlsym(RTLD_NEXT, name);
  resolving = 0;
  return f == self ? NULL : f;
}

_Noreturn void amber_wrap_missing(const char *name) {
  amber_fatal("cannot find the C library's %s() behind libamber's interceptor; is libamber loaded before libc (LD_PRELOAD)?", name);
}

void amber_wrappers_heap_open(void) { amber_wrap_signals_install(); }

/* ---- reading and writing the heap ---- */

/* Heap reads need the engine (its committed versions may not be in the data
 * area yet): an engine without direct reads, a heap still open.  Otherwise
 * the data area holds the committed state and is read in place, at the
 * alias.  Either way libc never reads the canonical window itself: it is
 * inaccessible (strict mode) or may be stale. */
static int engine_reads(void) {
  return amber_tx_engine && !amber_tx_engine->direct_reads && !__atomic_load_n(&amber_heap_closed, __ATOMIC_ACQUIRE);
}

void amber_wrap_check_usable(const char *fn, const void *addr) {
  if (__builtin_expect(amber_heap_forked, 0))
    amber_fatal("fork() in a process with an open amber heap: the child (pid %d) called %s() on heap %s memory at %p. A forked child "
                "must not use its parent's heap: exec (or _exit) in the child, or fork before the heap is opened (docs/wrappers.md)",
                (int)getpid(), fn, amber_the_heap.path, addr);
}

void amber_wrap_read_tx(void (*fn)(void *), void *arg) {
  /* In a transaction: its view; reads in place: no transaction needed. */
  if (amber_thread()->depth > 0 || !engine_reads()) fn(arg);
  else amber_tx_run_internal(fn, arg);
}

void amber_wrap_write_tx(const char *what, const void *addr, void (*fn)(void *), void *arg) {
  amber_wrap_check_usable(what, addr);
  if (__atomic_load_n(&amber_heap_closed, __ATOMIC_ACQUIRE))
    amber_fatal("%s() wrote heap %s memory at %p after amber_close() closed the heap; close it only when the program is done with it",
                what, amber_the_heap.path, addr);
  amber_tx_run_internal(fn, arg);
}

/* Heap reads through the engine go in pieces that end on this alignment, so
 * a scan for a string's end reads few bytes past it. */
#define PIECE 256u

void amber_wrap_load(void *dst, const void *src, size_t n) {
  uintptr_t b = __amber_heap_base, e = b + __amber_heap_size, a = (uintptr_t)src;
  char *d = dst;
  int engine = engine_reads();
  struct amber_thread *t = engine ? amber_thread() : NULL;
  while (n) {
    size_t k;
    if (a < b || a >= e) {
      k = a < b && b - a < n ? b - a : n;
      REAL(memmove)(d, (const void *)a, k);
    } else {
      k = e - a < n ? e - a : n;
      if (engine) amber_tx_read(t, amber_heap_alias((const void *)a), d, k);
      else REAL(memmove)(d, amber_heap_alias((const void *)a), k);
    }
    a += k;
    d += k;
    n -= k;
  }
}

size_t amber_wrap_strnlen_tx(const char *s, size_t max) {
  size_t i = 0;
  while (i < max) {
    const char *p = s + i;
    if (!wrap_in_heap(p)) return i + REAL(strnlen)(p, max - i);
    uintptr_t a = (uintptr_t)p, e = __amber_heap_base + __amber_heap_size;
    if (!engine_reads()) {
      /* In place, up to the window's end (a string may not run past it). */
      size_t k = e - a < max - i ? e - a : max - i, z = REAL(strnlen)(amber_heap_alias(p), k);
      if (z < k) return i + z;
      i += k;
      continue;
    }
    size_t k = PIECE - (a & (PIECE - 1));
    if (k > e - a) k = e - a;
    if (k > max - i) k = max - i;
    char buf[PIECE];
    amber_tx_read(amber_thread(), amber_heap_alias(p), buf, k);
    const char *z = memchr(buf, 0, k);
    if (z) return i + (size_t)(z - buf);
    i += k;
  }
  return max;
}

struct copy_req {
  void *dst;
  const void *src;
  size_t n;
};

static void read_fn(void *arg) {
  struct copy_req *r = arg;
  amber_wrap_load(r->dst, r->src, r->n);
}

void amber_wrap_read(void *dst, const void *src, size_t n) {
  if (!n) return;
  if (!wrap_touches(src, n)) {
    REAL(memmove)(dst, src, n);
    return;
  }
  amber_wrap_check_usable("read", src);
  struct copy_req r = {dst, src, n};
  amber_wrap_read_tx(read_fn, &r);
}

static void write_fn(void *arg) {
  struct copy_req *r = arg;
  __amber_memmove(r->dst, r->src, r->n);
}

void amber_wrap_write(const char *what, void *dst, const void *src, size_t n) {
  if (!n) return;
  struct copy_req r = {dst, src, n};
  amber_wrap_write_tx(what, dst, write_fn, &r);
}

struct str_req {
  const char *s;
  size_t max, len, cap;
  char *buf;
};

static void str_fn(void *arg) {
  struct str_req *r = arg;
  r->len = amber_wrap_strnlen_tx(r->s, r->max);
  if (r->len < r->cap) amber_wrap_load(r->buf, r->s, r->len);
}

char *amber_wrap_strndup(const char *s, size_t max, size_t *len) {
  struct str_req r = {s, max, 0, 256, NULL};
  for (;;) {
    char *nb = realloc(r.buf, r.cap);
    if (!nb) {
      free(r.buf);
      return NULL;
    }
    r.buf = nb;
    amber_wrap_read_tx(str_fn, &r);
    if (r.len < r.cap) break;
    r.cap = r.len + 1; /* it grew meanwhile, or was longer than the guess */
  }
  r.buf[r.len] = 0;
  if (len) *len = r.len;
  return r.buf;
}
