/* stray_fill: filling a persistent table with stores outside regions, the
 * way a program's set-up phase does (STAMP's set-up phases are the model:
 * bench/stamp/README.md), against the same program on ordinary memory.
 *
 * The same file builds two ways: with amber-cc (amber.h found) the table
 * is the heap's root and every store to it is a stray store, gathered into
 * the thread's batch (runtime/tx/batch.c); with plain clang it is malloc'd
 * ordinary memory.  One pass writes every record (4 stores of 8 bytes each:
 * an id, a price from a xorshift, two counts); --passes passes count.  Ends
 * with amber_sync(), inside the timing: the stores are durable when the
 * clock stops.  Prints one JSON line:
 *
 *   {"bench": "stray_fill", "build": "amber"|"plain", "records": N,
 *    "passes": P, "work": W, "stores": S, "ns": T, "cpu_ns": U, "stores_per_s": X,
 *    "stores_per_cpu_s": Y, "checksum": C}
 *
 * ns is wall-clock time, cpu_ns the process's CPU time over the same span
 * (every thread: mvcc's detector included), steadier on a shared machine.
 *
 *   stray_fill [--records N] [--passes P] [--work W]
 * Defaults: 16384 records (512 KiB), 80 passes, work 0.  --work: W more
 * xorshift rounds per record (about 1 ns each), the computation a real
 * set-up does between its stores (a pure store loop is the worst case).  bench/stray-run runs both
 * builds and prints their ratio; bench/README.md has the figures.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if __has_include(<amber.h>)
#include <amber.h>
#define BUILD "amber"
#else
#define BUILD "plain"
#endif

struct rec {
  long id, price, free, total;
};

static uint64_t now_ns(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void fill(struct rec *t, long n, long pass, long work) {
  uint64_t x = 88172645463325252ull + (uint64_t)pass;
  for (long i = 0; i < n; i++) {
    for (long w = 0; w <= work; w++) { /* the record's computation: 1 + work xorshift rounds */
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
    }
    t[i].id = i + 1;
    t[i].price = (long)(x % 1000) + 50;
    t[i].free = (long)(x >> 20) % 100 + pass;
    t[i].total = t[i].free + 100;
  }
}

int main(int argc, char **argv) {
  long n = 16384, passes = 80, work = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--records")) n = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--passes")) passes = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "--work")) work = atol(argv[i + 1]);
    else {
      fprintf(stderr, "usage: stray_fill [--records N] [--passes P] [--work W]\n");
      return 2;
    }
  }
  if (n < 1 || passes < 1 || work < 0) {
    fprintf(stderr, "stray_fill: --records and --passes must be positive, --work not negative\n");
    return 2;
  }
#ifdef AMBER_H
  struct rec *t = amber_root((size_t)n * sizeof *t);
#else
  struct rec *t = calloc((size_t)n, sizeof *t);
  if (!t) return 1;
#endif
  uint64_t t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  for (long p = 0; p < passes; p++) fill(t, n, p, work);
#ifdef AMBER_H
  amber_sync();
#endif
  uint64_t ns = now_ns(CLOCK_MONOTONIC) - t0, cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
  long sum = 0;
  for (long i = 0; i < n; i++) sum += t[i].id ^ t[i].price ^ t[i].free ^ t[i].total;
  double stores = 4.0 * (double)n * (double)passes;
  printf("{\"bench\": \"stray_fill\", \"build\": \"%s\", \"records\": %ld, \"passes\": %ld, \"work\": %ld, \"stores\": %.0f, \"ns\": %llu, \"cpu_ns\": %llu, "
         "\"stores_per_s\": %.0f, \"stores_per_cpu_s\": %.0f, \"checksum\": %ld}\n",
         BUILD, n, passes, work, stores, (unsigned long long)ns, (unsigned long long)cpu, stores / ((double)ns / 1e9),
         stores / ((double)cpu / 1e9), sum);
  return 0;
}
