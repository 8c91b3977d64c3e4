/* The allocator family, for every caller: the program's own calls through a
 * pointer (&malloc taken by the program resolves here, libamber coming
 * before libc), and code the pass never compiled (a plain shared library).
 *
 * Inside a region, malloc, calloc, realloc, reallocarray, aligned_alloc,
 * posix_memalign, memalign, valloc, pvalloc (and strdup, strndup: str.c)
 * allocate from the persistent heap, in the region's transaction, as the
 * pass's rewritten direct calls do (__amber_malloc), unless the caller is
 * the C library, the dynamic loader, the C++ or unwinding runtime, or
 * libamber and its own libraries allocating for themselves (a FILE's
 * buffer, a dlopen): the return address is checked against those modules'
 * code (a cached table).  Outside regions they are the next definition's
 * (libc, a sanitizer's or a preloaded allocator).  free and realloc send a
 * persistent pointer to the persistent allocator (its own transaction
 * outside regions), anything else to the next definition.
 *
 * None of the family is linked with --wrap (real.c): libamber's own calls
 * reach the same definitions as everybody's, so that its mallocs and frees
 * pair up when a sanitizer's allocator comes first (in the executable), and
 * the runtime hands persistent pointers to free and realloc outside regions
 * (entry/libc.c).  Inside a region its allocations are volatile because
 * libamber is among the modules that allocate for themselves. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wrap.h"

WRAP_REAL_START(malloc)
WRAP_REAL_START(calloc)
WRAP_REAL(aligned_alloc)
WRAP_REAL(posix_memalign)
WRAP_REAL(memalign)
WRAP_REAL(valloc)
WRAP_REAL(pvalloc)
WRAP_REAL(malloc_usable_size)
WRAP_REAL_START(free)
WRAP_REAL_START(realloc)

/* ---- bootstrap: allocations while dlsym resolves the next definitions ----
 *
 * dlsym allocates (glibc's dlerror buffer, with calloc), and so calls back
 * into us before the next malloc is known.  Those few blocks come from a
 * static arena, each after a 16-byte header holding its size; free drops
 * them, realloc copies them out. */
#define BOOT_SIZE (64u << 10)
static _Alignas(16) char boot[BOOT_SIZE];
static size_t boot_used;

static inline int boot_owns(const void *p) { return (uintptr_t)p - (uintptr_t)boot < BOOT_SIZE; }

static void *boot_alloc(size_t n, size_t align) {
  if (align < 16) align = 16;
  for (;;) {
    size_t at = __atomic_load_n(&boot_used, __ATOMIC_RELAXED);
    size_t start = (at + 16 + align - 1) & ~(align - 1);
    if (n > BOOT_SIZE || start + n > BOOT_SIZE) {
      static const char msg[] = "amber: error: out of start-up memory while resolving the C library's allocator behind "
                                "libamber's; is libamber loaded before libc (LD_PRELOAD)?\n";
      (void)!write(2, msg, sizeof msg - 1);
      abort();
    }
    if (__atomic_compare_exchange_n(&boot_used, &at, start + n, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
      *(size_t *)(boot + start - 16) = n;
      return boot + start; /* static storage: zeroed */
    }
  }
}

static inline size_t boot_size(const void *p) { return *(const size_t *)((const char *)p - 16); }

/* ---- who is calling: the modules that allocate for themselves ---- */

struct code_range {
  uintptr_t lo, hi;
  int internal;
};
struct code_map {
  unsigned long long adds; /* dl_iterate_phdr's count of loads when made */
  size_t n;
  struct code_range r[];
};
static struct code_map *code_map; /* published with release; old ones are never freed */
static pthread_mutex_t code_lock = PTHREAD_MUTEX_INITIALIZER;

static int internal_name(const char *path) {
  static const char *const names[] = {"libc.so",     "ld-linux",  "ld64.so",     "libstdc++.so", "libgcc_s.so",
                                      "libamber.so", "libpmem.so", "libunwind",  "libdl.so",     "libpthread.so",
                                      "librt.so",    "libm.so",    "libndctl.so", "libdaxctl.so", "linux-vdso",
                                      "libasan.so",  "libtsan.so", "libubsan.so"};
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strncmp(base, names[i], strlen(names[i])) == 0) return 1;
  return 0;
}

struct scan {
  struct code_map *m; /* NULL: counting */
  size_t n, cap;
  unsigned long long adds;
};

static int scan_fn(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct scan *s = arg;
  s->adds = info->dlpi_adds;
  int internal = info->dlpi_name && internal_name(info->dlpi_name);
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    if (s->m && s->n < s->cap) {
      struct code_range *r = &s->m->r[s->n];
      r->lo = info->dlpi_addr + ph->p_vaddr;
      r->hi = r->lo + ph->p_memsz;
      r->internal = internal;
    }
    s->n++;
  }
  return 0;
}

static int adds_fn(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  *(unsigned long long *)arg = info->dlpi_adds;
  return 1;
}

/* A new table of every module's code (libc's malloc; never freed). */
static struct code_map *rescan(void) {
  struct scan s = {NULL, 0, 0, 0};
  dl_iterate_phdr(scan_fn, &s);
  for (;;) {
    size_t cap = s.n + 16; /* modules loaded between the two walks */
    struct code_map *m = REAL(malloc)(sizeof *m + cap * sizeof m->r[0]);
    if (!m) return NULL;
    s = (struct scan){m, 0, cap, 0};
    dl_iterate_phdr(scan_fn, &s);
    if (s.n <= cap) {
      m->n = s.n;
      m->adds = s.adds;
      return m;
    }
    REAL(free)(m);
  }
}

static int lookup(const struct code_map *m, uintptr_t a) {
  for (size_t i = 0; m && i < m->n; i++)
    if (a - m->r[i].lo < m->r[i].hi - m->r[i].lo) return m->r[i].internal;
  return -1;
}

/* The code at return address ra belongs to a module that allocates for
 * itself.  Unknown code (a module loaded since the table was made) makes a
 * new table once per dlopen; code in no module at all counts as the
 * program's. */
int amber_wrap_internal_caller(const void *ra) {
  uintptr_t a = (uintptr_t)ra;
  /* The runtime's own calls, where it is linked into the program (whose
   * code otherwise counts as the program's): libamber.so is named below. */
  if (amber_runtime_linked_in(ra)) return 1;
  int k = lookup(__atomic_load_n(&code_map, __ATOMIC_ACQUIRE), a);
  if (__builtin_expect(k >= 0, 1)) return k;
  pthread_mutex_lock(&code_lock);
  struct code_map *m = __atomic_load_n(&code_map, __ATOMIC_ACQUIRE);
  unsigned long long adds = 0;
  if (m) dl_iterate_phdr(adds_fn, &adds);
  if (!m || adds != m->adds) {
    struct code_map *g = rescan();
    if (g) __atomic_store_n(&code_map, m = g, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&code_lock);
  k = lookup(m, a);
  return k > 0;
}

/* ---- the next definitions ---- */

static inline void *next_malloc(size_t n) {
  __typeof__(malloc) *f = TRY_REAL(malloc);
  if (__builtin_expect(f != NULL, 1)) return f(n);
  return boot_alloc(n, 16);
}

static inline void *next_calloc(size_t n, size_t size) {
  __typeof__(calloc) *f = TRY_REAL(calloc);
  if (__builtin_expect(f != NULL, 1)) return f(n, size);
  if (size && n > (size_t)-1 / size) return NULL;
  return boot_alloc(n * size, 16);
}

/* free and realloc never look their next definition up themselves: until
 * libamber's constructors have resolved it, which allocator owns a pointer
 * is unknown (glibc's, a sanitizer's, a preloaded one), and looking it up
 * here is not safe: these calls come from inside dlsym itself (glibc's
 * dlerror frees its message through us while a sanitizer starts, before our
 * constructors; a nested dlsym would free the same message again), or from
 * our own resolution.  So such a free is dropped and such a realloc copies
 * into a new block: a few blocks of start-up, never a wrong free. */
static inline __typeof__(free) *next_free(void) { return __atomic_load_n(&amber_real_free, __ATOMIC_ACQUIRE); }
static inline __typeof__(realloc) *next_realloc(void) { return __atomic_load_n(&amber_real_realloc, __ATOMIC_ACQUIRE); }

/* ---- the interceptors ---- */

/* Inside a region, called by the program (or a library of its) rather than
 * by a module allocating for itself.  One relaxed load while no heap is
 * open. */
#define PERSISTENT_CALL() wrap_persistent_call(__builtin_return_address(0))

static inline size_t page_size(void) {
  static size_t ps;
  size_t p = __atomic_load_n(&ps, __ATOMIC_RELAXED);
  if (!p) __atomic_store_n(&ps, p = (size_t)sysconf(_SC_PAGESIZE), __ATOMIC_RELAXED);
  return p;
}

void *malloc(size_t n) {
  if (__builtin_expect(PERSISTENT_CALL(), 0)) return amber_interpose_palloc("malloc", n, 0, 0);
  return next_malloc(n);
}

void *calloc(size_t n, size_t size) {
  if (__builtin_expect(PERSISTENT_CALL(), 0)) {
    if (size && n > (size_t)-1 / size) {
      errno = ENOMEM;
      return NULL;
    }
    return amber_interpose_palloc("calloc", n * size, 0, 1);
  }
  return next_calloc(n, size);
}

static int bad_align(size_t a) { return a == 0 || (a & (a - 1)) != 0; }

void *aligned_alloc(size_t align, size_t n) {
  if (__builtin_expect(PERSISTENT_CALL(), 0)) {
    if (bad_align(align)) {
      errno = EINVAL;
      return NULL;
    }
    return amber_interpose_palloc("aligned_alloc", n, align, 0);
  }
  return REAL(aligned_alloc)(align, n);
}

void *memalign(size_t align, size_t n) {
  if (__builtin_expect(PERSISTENT_CALL(), 0)) {
    if (bad_align(align)) {
      errno = EINVAL;
      return NULL;
    }
    return amber_interpose_palloc("memalign", n, align, 0);
  }
  return REAL(memalign)(align, n);
}

void *valloc(size_t n) {
  if (__builtin_expect(PERSISTENT_CALL(), 0)) return amber_interpose_palloc("valloc", n, page_size(), 0);
  return REAL(valloc)(n);
}

void *pvalloc(size_t n) {
  if (__builtin_expect(PERSISTENT_CALL(), 0)) {
    size_t ps = page_size();
    return amber_interpose_palloc("pvalloc", n ? (n + ps - 1) & ~(ps - 1) : ps, ps, 0);
  }
  return REAL(pvalloc)(n);
}

int posix_memalign(void **out, size_t align, size_t n) {
  void *p;
  if (__builtin_expect(PERSISTENT_CALL(), 0)) {
    if (bad_align(align) || align % sizeof(void *)) return EINVAL;
    p = amber_interpose_palloc("posix_memalign", n, align, 0);
  } else if (__builtin_expect(!wrap_touches(out, sizeof *out), 1)) {
    return REAL(posix_memalign)(out, align, n);
  } else {
    int e = REAL(posix_memalign)(&p, align, n);
    if (e) return e;
  }
  /* *out may be persistent (a field of a persistent object). */
  if (wrap_touches(out, sizeof *out)) amber_wrap_write("posix_memalign", out, &p, sizeof p);
  else *out = p;
  return 0;
}

void free(void *p) {
  if (p && wrap_in_heap(p)) {
    amber_interpose_free(p);
    return;
  }
  if (__builtin_expect(boot_owns(p), 0)) return;
  __typeof__(free) *f = next_free();
  if (__builtin_expect(f != NULL, 1)) f(p);
}

void *realloc(void *p, size_t n) {
  if (p && wrap_in_heap(p)) return amber_interpose_realloc(p, n);
  if (__builtin_expect(PERSISTENT_CALL(), 0)) {
    /* A volatile block (or none) resized inside a region: the result is
     * persistent, as __amber_realloc makes it. */
    if (!p) return amber_interpose_palloc("realloc", n, 0, 0);
    if (!boot_owns(p)) return amber_interpose_realloc(p, n);
  }
  __typeof__(realloc) *f = next_realloc();
  if (__builtin_expect(f != NULL && !boot_owns(p), 1)) return f(p, n);
  void *q = next_malloc(n ? n : 1);
  if (q && p) {
    size_t old = boot_owns(p) ? boot_size(p) : malloc_usable_size(p);
    amber_wrap_plain_move(q, p, old < n ? old : n); /* memcpy might not be resolved either */
  }
  return q;
}

void *reallocarray(void *p, size_t n, size_t size) {
  if (size && n > (size_t)-1 / size) {
    errno = ENOMEM;
    return NULL;
  }
  if (p && wrap_in_heap(p)) return amber_interpose_realloc(p, n * size);
  if (__builtin_expect(PERSISTENT_CALL(), 0)) {
    if (!p) return amber_interpose_palloc("reallocarray", n * size, 0, 0);
    if (!boot_owns(p)) return amber_interpose_realloc(p, n * size);
  }
  return realloc(p, n * size);
}

size_t malloc_usable_size(void *p) {
  if (p && wrap_in_heap(p)) return amber_interpose_psize(p);
  if (__builtin_expect(boot_owns(p), 0)) return boot_size(p);
  return REAL(malloc_usable_size)(p);
}
