/* PMDK flush counter: an LD_PRELOAD object that interposes the libpmem
 * functions libpmemobj calls (pmem_flush, pmem_drain, pmem_persist,
 * pmem_msync, pmem_memcpy/memmove/memset and their _persist/_nodrain forms,
 * pmem_deep_*), forwards each to the real one (dlsym RTLD_NEXT) and counts
 * what it costs on persistent memory, the way amber's runtime counts its own:
 *   flushes        cache lines (64 B) written back: every line [addr, addr+len)
 *                  touches; for the copy functions the destination's lines
 *                  unless PMEM_F_MEM_NOFLUSH
 *   fences         drains: pmem_drain, and the drain that ends every persist,
 *                  msync and copy without PMEM_F_MEM_NODRAIN / NOFLUSH
 *   flushed_bytes  flushes * 64
 *   msyncs         pmem_msync calls (each one msync(2)): how libpmemobj makes
 *                  a range durable on a file that is not persistent memory
 * Only the outermost call counts: libpmem calls its own exported pmem_flush
 * and pmem_drain through its PLT (pmem_persist = flush + drain), which lands
 * here again.
 *
 * Latency emulation, read once at load (the runtime's AMBER_PM_* semantics):
 *   AMBER_PM_WRITE_NS  nanoseconds added per flushed line
 *   AMBER_PM_FENCE_NS  nanoseconds added per fence
 * The delay is a busy-wait after the real call (TSC calibrated against
 * CLOCK_MONOTONIC at load, or CLOCK_MONOTONIC itself without an invariant
 * TSC), so it burns the time a slow write would.
 *
 * At exit, with AMBER_STATS_FILE set, one JSON line goes there:
 *   {"flushes": N, "fences": N, "flushed_bytes": N, "emulated_delay_ns": N,
 *    "pm_write_ns": W, "pm_fence_ns": F, "msyncs": N}
 * (emulated_delay_ns = flushes * W + fences * F exactly).
 *   clang-16 -O2 -shared -fPIC -Wall -Werror bench/pmdk/shim.c -o pmdk-shim.so -ldl
 *   LD_PRELOAD=./pmdk-shim.so AMBER_STATS_FILE=s.json pmdk-hash --pool ... */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

#define LINE 64
#define MAX_NS 1000000 /* 1 ms per line or fence: anything above is a typo */
/* The copy functions' flags (libpmem.h; redefined so the shim needs no headers). */
#define F_NODRAIN (1u << 0)
#define F_NOFLUSH (1u << 5)

static void fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* ---- per-thread counters -------------------------------------------------- */
/* One block per thread, linked into a global list and never freed, so the
 * exit-time sum can read blocks of threads that have already ended.  Only the
 * owner writes a block (relaxed stores), the destructor reads (relaxed loads). */
struct block {
  uint64_t flushes, fences, delay_ns, msyncs;
  struct block *next;
};
static struct block *blocks;
static __thread struct block *mine __attribute__((tls_model("initial-exec")));
/* Depth of shim calls on this thread: libpmem's inner calls (depth > 0)
 * forward without counting. */
static __thread int depth __attribute__((tls_model("initial-exec")));

static struct block *self(void) {
  struct block *b = mine;
  if (__builtin_expect(b != NULL, 1)) return b;
  b = calloc(1, sizeof *b);
  if (!b) fatal("pmdk shim: out of memory");
  b->next = __atomic_load_n(&blocks, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(&blocks, &b->next, b, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
  }
  return mine = b;
}

/* ---- latency emulation ------------------------------------------------------ */
static uint64_t write_ns, fence_ns;
static uint64_t tsc_per_ns_q32; /* TSC ticks per ns, 32.32 fixed point; 0: spin on the clock */

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void calibrate(void) {
#if defined(__x86_64__)
  unsigned a, b, c, d;
  if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8))) return; /* no invariant TSC */
  uint64_t t0 = now_ns(), c0 = __rdtsc(), t1;
  while ((t1 = now_ns()) - t0 < 5000000) _mm_pause(); /* 5 ms */
  uint64_t c1 = __rdtsc();
  tsc_per_ns_q32 = (uint64_t)(((unsigned __int128)(c1 - c0) << 32) / (t1 - t0));
#endif
}

static void spin(uint64_t ns) {
#if defined(__x86_64__)
  if (tsc_per_ns_q32) {
    uint64_t end = __rdtsc() + (uint64_t)(((unsigned __int128)ns * tsc_per_ns_q32) >> 32);
    while (__rdtsc() < end) {
    } /* no pause: it would overshoot short delays (as the runtime's spin) */
    return;
  }
#endif
  uint64_t end = now_ns() + ns;
  while (now_ns() < end) {
  }
}

/* Count (and delay) one outermost call's lines and fences. */
static inline void account(uint64_t lines, uint64_t fences) {
  struct block *b = self();
  uint64_t ns = lines * write_ns + fences * fence_ns;
  __atomic_store_n(&b->flushes, b->flushes + lines, __ATOMIC_RELAXED);
  __atomic_store_n(&b->fences, b->fences + fences, __ATOMIC_RELAXED);
  if (ns) {
    __atomic_store_n(&b->delay_ns, b->delay_ns + ns, __ATOMIC_RELAXED);
    spin(ns);
  }
}

static inline uint64_t lines_of(const void *addr, size_t len) {
  if (!len) return 0;
  uintptr_t a = (uintptr_t)addr & ~(uintptr_t)(LINE - 1), e = (uintptr_t)addr + len;
  return (e - a + LINE - 1) / LINE;
}

/* ---- the real functions ----------------------------------------------------- */
#define REAL_FUNCTIONS(X)                                                                      \
  X(pmem_flush, void, (const void *, size_t))                                                  \
  X(pmem_drain, void, (void))                                                                  \
  X(pmem_persist, void, (const void *, size_t))                                                \
  X(pmem_msync, int, (const void *, size_t))                                                   \
  X(pmem_deep_flush, void, (const void *, size_t))                                             \
  X(pmem_deep_drain, int, (const void *, size_t))                                              \
  X(pmem_deep_persist, int, (const void *, size_t))                                            \
  X(pmem_memcpy, void *, (void *, const void *, size_t, unsigned))                             \
  X(pmem_memmove, void *, (void *, const void *, size_t, unsigned))                            \
  X(pmem_memset, void *, (void *, int, size_t, unsigned))                                      \
  X(pmem_memcpy_persist, void *, (void *, const void *, size_t))                               \
  X(pmem_memmove_persist, void *, (void *, const void *, size_t))                              \
  X(pmem_memset_persist, void *, (void *, int, size_t))                                        \
  X(pmem_memcpy_nodrain, void *, (void *, const void *, size_t))                               \
  X(pmem_memmove_nodrain, void *, (void *, const void *, size_t))                              \
  X(pmem_memset_nodrain, void *, (void *, int, size_t))

#define X(name, ret, args)      \
  typedef ret(*name##_fn) args; \
  static void *real_##name;
REAL_FUNCTIONS(X)
#undef X

/* dlsym(RTLD_NEXT) of one function, once (a race resolves it twice to the
 * same address), refusing a result that is the wrapper itself. */
static void *real(void **slot, const char *name, void *self_fn) {
  void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);
  if (__builtin_expect(p != NULL, 1)) return p;
  p = dlsym(RTLD_NEXT, name);
  if (!p || p == self_fn)
    fatal("pmdk shim: %s not found in the libraries after the shim; preload it only into programs linked with libpmem",
          name);
  __atomic_store_n(slot, p, __ATOMIC_RELAXED);
  return p;
}
#define REAL(name) ((name##_fn)real(&real_##name, #name, (void *)name))

/* Every wrapper: count at depth 0, forward, delay. */
#define ENTER() int outer_ = depth++ == 0
#define LEAVE(lines, fences)              \
  do {                                    \
    depth--;                              \
    if (outer_) account((lines), (fences)); \
  } while (0)

/* The wrappers carry libpmem's names, so their prototypes come from here. */
#define X(name, ret, args) ret name args;
REAL_FUNCTIONS(X)
#undef X

void pmem_flush(const void *addr, size_t len) {
  ENTER();
  REAL(pmem_flush)(addr, len);
  LEAVE(lines_of(addr, len), 0);
}

void pmem_drain(void) {
  ENTER();
  REAL(pmem_drain)();
  LEAVE(0, 1);
}

void pmem_persist(const void *addr, size_t len) {
  ENTER();
  REAL(pmem_persist)(addr, len);
  LEAVE(lines_of(addr, len), 1);
}

int pmem_msync(const void *addr, size_t len) {
  ENTER();
  int r = REAL(pmem_msync)(addr, len);
  struct block *b = self(); /* every call is a system call, at any depth */
  __atomic_store_n(&b->msyncs, b->msyncs + 1, __ATOMIC_RELAXED);
  LEAVE(lines_of(addr, len), 1);
  return r;
}

void pmem_deep_flush(const void *addr, size_t len) {
  ENTER();
  REAL(pmem_deep_flush)(addr, len);
  LEAVE(lines_of(addr, len), 0);
}

int pmem_deep_drain(const void *addr, size_t len) {
  ENTER();
  int r = REAL(pmem_deep_drain)(addr, len);
  LEAVE(0, 1);
  return r;
}

int pmem_deep_persist(const void *addr, size_t len) {
  ENTER();
  int r = REAL(pmem_deep_persist)(addr, len);
  LEAVE(lines_of(addr, len), 1);
  return r;
}

/* NOFLUSH implies NODRAIN (libpmem's pmem_memmove(3)). */
static inline uint64_t copy_lines(const void *dst, size_t len, unsigned flags) {
  return flags & F_NOFLUSH ? 0 : lines_of(dst, len);
}
static inline uint64_t copy_fences(unsigned flags) { return flags & (F_NODRAIN | F_NOFLUSH) ? 0 : 1; }

void *pmem_memcpy(void *dst, const void *src, size_t len, unsigned flags) {
  ENTER();
  void *r = REAL(pmem_memcpy)(dst, src, len, flags);
  LEAVE(copy_lines(dst, len, flags), copy_fences(flags));
  return r;
}

void *pmem_memmove(void *dst, const void *src, size_t len, unsigned flags) {
  ENTER();
  void *r = REAL(pmem_memmove)(dst, src, len, flags);
  LEAVE(copy_lines(dst, len, flags), copy_fences(flags));
  return r;
}

void *pmem_memset(void *dst, int c, size_t len, unsigned flags) {
  ENTER();
  void *r = REAL(pmem_memset)(dst, c, len, flags);
  LEAVE(copy_lines(dst, len, flags), copy_fences(flags));
  return r;
}

void *pmem_memcpy_persist(void *dst, const void *src, size_t len) {
  ENTER();
  void *r = REAL(pmem_memcpy_persist)(dst, src, len);
  LEAVE(lines_of(dst, len), 1);
  return r;
}

void *pmem_memmove_persist(void *dst, const void *src, size_t len) {
  ENTER();
  void *r = REAL(pmem_memmove_persist)(dst, src, len);
  LEAVE(lines_of(dst, len), 1);
  return r;
}

void *pmem_memset_persist(void *dst, int c, size_t len) {
  ENTER();
  void *r = REAL(pmem_memset_persist)(dst, c, len);
  LEAVE(lines_of(dst, len), 1);
  return r;
}

void *pmem_memcpy_nodrain(void *dst, const void *src, size_t len) {
  ENTER();
  void *r = REAL(pmem_memcpy_nodrain)(dst, src, len);
  LEAVE(lines_of(dst, len), 0);
  return r;
}

void *pmem_memmove_nodrain(void *dst, const void *src, size_t len) {
  ENTER();
  void *r = REAL(pmem_memmove_nodrain)(dst, src, len);
  LEAVE(lines_of(dst, len), 0);
  return r;
}

void *pmem_memset_nodrain(void *dst, int c, size_t len) {
  ENTER();
  void *r = REAL(pmem_memset_nodrain)(dst, c, len);
  LEAVE(lines_of(dst, len), 0);
  return r;
}

/* ---- load and exit -------------------------------------------------------------- */
static void fatal(const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof msg - 1, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  if (n > (int)sizeof msg - 2) n = (int)sizeof msg - 2;
  msg[n++] = '\n';
  ssize_t w = write(2, "amber: error: ", 14);
  w = write(2, msg, (size_t)n);
  (void)w;
  _exit(2);
}

/* As the runtime parses its U64 options (decimal or 0x-prefixed) and bounds
 * these two (runtime/pm.c), with the same messages. */
static uint64_t parse_ns(const char *name, const char *what, const char *example) {
  const char *s = getenv(name);
  if (!s) return 0;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || end == s || *end || s[0] == '-')
    fatal("%s=%s is not a number; use a decimal or 0x-prefixed value", name, s);
  if (v > MAX_NS) fatal("%s=%s is more than %d ns; use a delay %s in nanoseconds, %s", name, s, MAX_NS, what, example);
  return v;
}

__attribute__((constructor)) static void shim_init(void) {
  write_ns = parse_ns("AMBER_PM_WRITE_NS", "per cache line", "e.g. 140 (STT-RAM) or 340 (PCM)");
  fence_ns = parse_ns("AMBER_PM_FENCE_NS", "per fence", "e.g. 200 (STT-RAM) or 500 (PCM)");
  if (write_ns || fence_ns) calibrate();
}

__attribute__((destructor)) static void shim_fini(void) {
  const char *path = getenv("AMBER_STATS_FILE");
  if (!path || !*path) return;
  uint64_t fl = 0, fe = 0, ns = 0, ms = 0;
  for (struct block *b = __atomic_load_n(&blocks, __ATOMIC_ACQUIRE); b; b = b->next) {
    fl += __atomic_load_n(&b->flushes, __ATOMIC_RELAXED);
    fe += __atomic_load_n(&b->fences, __ATOMIC_RELAXED);
    ns += __atomic_load_n(&b->delay_ns, __ATOMIC_RELAXED);
    ms += __atomic_load_n(&b->msyncs, __ATOMIC_RELAXED);
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "amber: warning: pmdk shim: cannot write AMBER_STATS_FILE=%s: %s\n", path, strerror(errno));
    return;
  }
  fprintf(f,
          "{\"flushes\": %" PRIu64 ", \"fences\": %" PRIu64 ", \"flushed_bytes\": %" PRIu64 ", \"emulated_delay_ns\": %" PRIu64
          ", \"pm_write_ns\": %" PRIu64 ", \"pm_fence_ns\": %" PRIu64 ", \"msyncs\": %" PRIu64 "}\n",
          fl, fe, fl * LINE, ns, write_ns, fence_ns, ms);
  fclose(f);
}
