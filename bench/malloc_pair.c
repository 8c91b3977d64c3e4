/* malloc_pair: what a malloc/free pair costs outside regions, the case every
 * program pays for once libamber interposes the allocator family
 * (wrappers/alloc.c).  Built with plain clang (nothing here is a region),
 * run bare, or with a libamber preloaded (LD_PRELOAD) to compare builds of
 * the interceptors; bench/README.md, "Allocator interposition", has the
 * commands and figures.
 *
 *   malloc_pair [--pairs N] [--open HEAP]
 * --pairs: pairs per trial (default 2,000,000); the best of 5 trials counts,
 * timed with the thread's CPU clock (preemption by other work is not counted).
 * --open: open the heap file HEAP first (amber_open, found with dlsym: only
 * under a preloaded libamber), so the interceptors take their heap-open
 * path (the in-region check) rather than the no-heap one.
 * Prints one JSON line: ns per pair, and a checksum. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* steadier on a shared machine */
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Sizes 16..512 from a fixed xorshift sequence; a few blocks live at once,
 * as a program's short-lived allocations. */
static __attribute__((noinline)) uint64_t trial(long pairs) {
  void *(*volatile m)(size_t) = malloc; /* the call the program makes */
  void (*volatile f)(void *) = free;
  void *live[8] = {0};
  uint64_t x = 88172645463325252ull, sum = 0;
  for (long i = 0; i < pairs; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    unsigned k = x & 7;
    f(live[k]);
    char *p = m(16 + (x >> 8) % 497);
    p[0] = (char)i;
    sum += (uintptr_t)p & 0xff0;
    live[k] = p;
  }
  for (unsigned k = 0; k < 8; k++) f(live[k]);
  return sum;
}

int main(int argc, char **argv) {
  long pairs = 2000000;
  const char *heap = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--pairs") && i + 1 < argc) pairs = atol(argv[++i]);
    else if (!strcmp(argv[i], "--open") && i + 1 < argc) heap = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--pairs N] [--open HEAP]\n", argv[0]);
      return 2;
    }
  }
  if (heap) {
    int (*open_heap)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "amber_open");
    if (!open_heap) {
      fprintf(stderr, "malloc_pair: --open needs libamber preloaded (LD_PRELOAD)\n");
      return 2;
    }
    open_heap(heap);
  }
  double best = 0;
  uint64_t sum = 0;
  for (int t = 0; t < 5; t++) {
    double t0 = now_ns();
    sum = trial(pairs);
    double ns = (now_ns() - t0) / pairs;
    if (t == 0 || ns < best) best = ns;
  }
  printf("{\"bench\":\"malloc_pair\",\"pairs\":%ld,\"heap_open\":%s,\"ns_per_pair\":%.2f,\"checksum\":%llu}\n", pairs,
         heap ? "true" : "false", best, (unsigned long long)sum);
  return 0;
}
