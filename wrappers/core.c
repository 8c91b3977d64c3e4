/* The interceptors' common part: resolving the real functions, the hook the
 * runtime calls at heap open, and whole heap reads and writes for code amber
 * never compiled (docs/wrappers.md). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "wrap.h"

/* dlsym may allocate, and so call back into us.  Initial-exec: no
 * __tls_get_addr call, which a sanitizer intercepts and cannot serve before
 * it is initialised, when glibc's dlsym in TSan's start-up frees through our
 * free() (libamber is loaded at start-up, so its TLS is static). */
static __thread int resolving __attribute__((tls_model("initial-exec")));

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

/* The fatal-signal handlers go in when the heap opens. */
__attribute__((constructor)) static void register_heap_open(void) { amber_interpose_on_heap_open(amber_wrap_signals_install); }

/* ---- whole operations on the heap, on interpose.h's reading and writing ---- */

struct copy_req {
  void *dst;
  const void *src;
  size_t n;
};

static void read_fn(void *arg) {
  struct copy_req *r = arg;
  amber_interpose_load(r->dst, r->src, r->n);
}

void amber_wrap_read(void *dst, const void *src, size_t n) {
  if (!n) return;
  if (!wrap_touches(src, n)) {
    memmove(dst, src, n); /* the C library's (--wrap, real.c) */
    return;
  }
  amber_interpose_check_usable("read", src);
  struct copy_req r = {dst, src, n};
  amber_interpose_read_tx(read_fn, &r);
}

static void write_fn(void *arg) {
  struct copy_req *r = arg;
  __amber_memmove(r->dst, r->src, r->n);
}

void amber_wrap_write(const char *what, void *dst, const void *src, size_t n) {
  if (!n) return;
  struct copy_req r = {dst, src, n};
  amber_interpose_write_tx(what, dst, write_fn, &r);
}

struct str_req {
  const char *s;
  size_t max, len, cap;
  char *buf;
};

static void str_fn(void *arg) {
  struct str_req *r = arg;
  r->len = amber_interpose_strnlen_tx(r->s, r->max);
  if (r->len < r->cap) amber_interpose_load(r->buf, r->s, r->len);
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
    amber_interpose_read_tx(str_fn, &r);
    if (r.len < r.cap) break;
    r.cap = r.len + 1; /* it grew meanwhile, or was longer than the guess */
  }
  r.buf[r.len] = 0;
  if (len) *len = r.len;
  return r.buf;
}

_Noreturn void amber_wrap_nomem(const char *fn, const void *addr, size_t n) {
  if (n)
    amber_fatal("%s() on heap memory at %p: out of memory for a volatile copy of %zu bytes; free some memory or pass a smaller buffer",
                fn, addr, n);
  amber_fatal("%s() on heap memory at %p: out of memory for a volatile copy; free some memory or pass a smaller buffer", fn, addr);
}
