/* What the process layer gives the interceptors of wrappers/ (declared in
 * interpose.h): whether a heap is open, reading and writing it for code
 * amber never compiled, and the heap's side of fork and fatal signals. */
#include "interpose.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "amber_interface.h"
#include "base/diag.h"
#include "heap/fault.h"
#include "heap/strict.h"
#include "heap/window.h"
#include "tx/tx.h"
#include "entry/code.h"
#include "stats.h"
#include "tx/alloc.h"
#include "tx/engine.h"
#include "tx/fase.h"
#include "tx/output.h"
#include "tx/tx.h"

/* ---- the process ---- */

/* Set once, by a wrappers/ constructor, before main. */
AMBER_START_DATA static void (*on_heap_open)(void);

AMBER_START_TEXT void amber_interpose_on_heap_open(void (*fn)(void)) { on_heap_open = fn; }

void amber_interpose_heap_opened(void) {
  if (on_heap_open) on_heap_open();
}

int amber_interpose_ready(void) { return amber_tx_is_ready(); }

int amber_interpose_heap_mapped(void) { return amber_interpose_ready() && !amber_heap_forked && amber_the_heap.data; }

void amber_interpose_forked(void) {
  struct amber_heap *h = &amber_the_heap;
  amber_tx_fast_off();
  amber_heap_forked = 1;
  __atomic_store_n(&amber_heap_closed, 1, __ATOMIC_RELEASE);
  if (h->data) mprotect(h->data, h->hdr.data_size, PROT_NONE);
  if (h->window) mprotect(h->window, h->hdr.data_size, PROT_NONE); /* readable with AMBER_STRICT=0 */
  if (h->meta) mprotect(h->meta, AMBER_META_SIZE, PROT_NONE);
  if (h->engine_area && h->hdr.engine_size) mprotect(h->engine_area, h->hdr.engine_size, PROT_NONE);
  if (h->fd >= 0) {
    close(h->fd); /* the parent's descriptor keeps the lock */
    h->fd = -1;
  }
}

static int within(const void *a, const void *base, uint64_t n) {
  return base && (uintptr_t)a - (uintptr_t)base < n;
}

int amber_interpose_heap_contains(const void *addr) {
  const struct amber_heap *h = &amber_the_heap;
  return within(addr, h->data, h->hdr.data_size) || within(addr, h->window, h->hdr.data_size) ||
         within(addr, h->meta, AMBER_META_SIZE) || within(addr, h->engine_area, h->hdr.engine_size);
}

/* ---- output inside regions ---- */

_Static_assert(AMBER_OUT_STREAM == AMBER_OUTPUT_STREAM && AMBER_OUT_FD == AMBER_OUTPUT_FD &&
                   AMBER_OUT_PWRITE == AMBER_OUTPUT_PWRITE && AMBER_OUT_SEND == AMBER_OUTPUT_SEND &&
                   AMBER_OUT_FLUSH == AMBER_OUTPUT_FLUSH,
               "interpose.h and tx/output.h name the same record kinds");

void amber_interpose_touch(void) { amber_tx_touch(amber_thread()); }

void amber_interpose_output(int kind, void *stream, int fd, int64_t arg, const void *bytes, size_t n) {
  amber_output_add(amber_thread(), kind, stream, fd, arg, bytes, n);
}

/* ---- reading and writing the heap ---- */

/* Heap reads need the engine: mvcc's committed versions may not be in the
 * data area yet (while the heap is open), and outside transactions romulus'
 * data area may hold a running writer's stores (its engine reads the
 * committed twin, closed heap or not).  Inside a transaction of an engine
 * with direct reads the data area is the transaction's view, read in place,
 * at the alias.  Either way libc never reads the canonical window itself:
 * it is inaccessible (strict mode) or may be stale. */
static int engine_reads(void) {
  if (!amber_tx_is_ready()) return 0;
  if (amber_tx_engine->direct_reads) {
    const struct amber_thread *t = amber_thread();
    return t->depth == 0 && !t->batch; /* a stray batch reads its view in place */
  }
  return !__atomic_load_n(&amber_heap_closed, __ATOMIC_ACQUIRE);
}

/* Before an interceptor reads or writes program memory on a region's
 * behalf: the region's transaction has begun (tx/tx.h, amber_tx_touch). */
static inline void touch_self(void) {
  struct amber_thread *t = amber_self;
  if (t) amber_tx_touch(t);
}

void amber_interpose_check_usable(const char *fn, const void *addr) {
  if (__builtin_expect(amber_heap_forked, 0)) {
    char did[96];
    snprintf(did, sizeof did, "called %s() on", fn);
    amber_heap_forked_fatal(did, addr);
  }
}

void amber_interpose_read_tx(void (*fn)(void *), void *arg) {
  /* In a transaction: its view.  Outside, an engine with direct reads
   * answers each piece with committed bytes without a transaction (a
   * romulus transaction would wait for the running writer); mvcc reads
   * them all in one transaction. */
  struct amber_thread *t = amber_thread();
  amber_tx_touch(t);
  if (t->depth > 0 || t->batch || !engine_reads() || amber_tx_engine->direct_reads) fn(arg);
  else amber_tx_run_internal(fn, arg);
}

void amber_interpose_write_tx(const char *what, const void *addr, void (*fn)(void *), void *arg) {
  amber_interpose_check_usable(what, addr);
  if (__atomic_load_n(&amber_heap_closed, __ATOMIC_ACQUIRE))
    amber_fatal("%s() wrote heap %s memory at %p after amber_close() closed the heap; close it only when the program is done with it",
                what, amber_the_heap.path, addr);
  amber_tx_run_internal(fn, arg);
}

const void *amber_interpose_in_place(const void *p) {
  touch_self();
  if (!amber_tx_is_ready() || engine_reads()) return NULL;
  return amber_heap_alias(p);
}

/* Heap reads through the engine go in pieces that end on this alignment, so
 * a scan for a string's end reads few bytes past it. */
#define PIECE 256u

/* memmove and strnlen here are the C library's: libamber.so is linked with
 * --wrap for them (wrappers/real.c). */
void amber_interpose_load(void *dst, const void *src, size_t n) {
  touch_self();
  uintptr_t b = __amber_heap_base, e = b + __amber_heap_size, a = (uintptr_t)src;
  char *d = dst;
  int engine = engine_reads();
  struct amber_thread *t = engine ? amber_thread() : NULL;
  while (n) {
    size_t k;
    if (a < b || a >= e) {
      k = a < b && b - a < n ? b - a : n;
      memmove(d, (const void *)a, k);
    } else {
      k = e - a < n ? e - a : n;
      if (engine) amber_tx_read(t, amber_heap_alias((const void *)a), d, k);
      else memmove(d, amber_heap_alias((const void *)a), k);
    }
    a += k;
    d += k;
    n -= k;
  }
}

size_t amber_interpose_strnlen_tx(const char *s, size_t max) {
  touch_self();
  size_t i = 0;
  while (i < max) {
    const char *p = s + i;
    if (!amber_in_heap(p)) return i + strnlen(p, max - i);
    uintptr_t a = (uintptr_t)p, e = __amber_heap_base + __amber_heap_size;
    if (!engine_reads()) {
      /* In place, up to the window's end (a string may not run past it). */
      size_t k = e - a < max - i ? e - a : max - i, z = strnlen(amber_heap_alias(p), k);
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

static void pfree_fn(void *p) { amber_pfree(amber_thread(), p); }

void amber_interpose_free(void *p) { amber_tx_run_internal(pfree_fn, p); }

struct realloc_req {
  void *p;
  size_t n;
  void *result;
};

static void prealloc_fn(void *arg) {
  struct realloc_req *r = arg;
  r->result = __amber_realloc(r->p, r->n);
}

void *amber_interpose_realloc(void *p, size_t n) {
  struct realloc_req r = {p, n, NULL};
  amber_tx_run_internal(prealloc_fn, &r);
  return r.result;
}

void *amber_interpose_scratch(size_t n) { return amber_tx_scratch(amber_thread(), n); }
void amber_interpose_scratch_free(void *p) { amber_tx_scratch_free(amber_thread(), p); }

/* A lock-delimited section's own transaction (depth 1, AMBER_FASE_OPEN) is
 * no region: allocations there stay volatile (docs/guide.md section 2.5). */
int amber_interpose_in_region(void) {
  const struct amber_thread *t = amber_self;
  return t && t->depth > (t->fase == AMBER_FASE_OPEN);
}

struct palloc_req {
  const char *s; /* pstrndup: the string */
  size_t n, align;
  int zero;
  void *result;
};

static void palloc_fn(void *arg) {
  struct palloc_req *r = arg;
  if (r->s) {
    r->result = __amber_strndup(r->s, r->n);
    return;
  }
  size_t n = r->n;
  if (r->align > 16) {
    /* Slab objects lie at multiples of their class size in a page-aligned
     * slab, so a power-of-two class is aligned to itself; larger objects
     * are whole pages. */
    if (n < r->align) n = r->align;
    if (n <= AMBER_SLAB_MAX) n = (size_t)1 << (64 - __builtin_clzll((unsigned long long)n - 1));
  }
  r->result = r->zero ? __amber_calloc(n, 1) : __amber_malloc(n);
}

void *amber_interpose_palloc(const char *fn, size_t n, size_t align, int zero) {
  if (align > AMBER_PAGE)
    amber_fatal("%s() inside a region asked for %zu-byte alignment; the persistent heap aligns objects to at most %u bytes: "
                "allocate with a smaller alignment, or outside the region",
                fn, align, AMBER_PAGE);
  struct palloc_req r = {NULL, n, align, zero, NULL};
  amber_tx_run_internal(palloc_fn, &r);
  return r.result;
}

char *amber_interpose_pstrndup(const char *s, size_t max) {
  struct palloc_req r = {s, max, 0, 0, NULL};
  amber_tx_run_internal(palloc_fn, &r);
  return r.result;
}

struct psize_req {
  const void *p;
  size_t size;
};

static void psize_fn(void *arg) {
  struct psize_req *r = arg;
  r->size = amber_palloc_size(amber_thread(), r->p);
}

size_t amber_interpose_psize(const void *p) {
  struct psize_req r = {p, 0};
  amber_tx_run_internal(psize_fn, &r);
  return r.size;
}

/* ---- threads and sections ---- */

void amber_interpose_sync_slow(void) { amber_tx_batch_sync(); }

struct amber_thread *amber_interpose_thread(void) { return amber_thread(); }

/* ---- fatal signals ---- */

int amber_interpose_strict(void) { return amber_the_heap.window != NULL; }

void amber_interpose_code_loaded(void *dst, const void *src, size_t n) { amber_code_fix_loaded(dst, src, n); }
