/* region_cost: what a region costs when it touches no persistent memory
 * (issue 19, item 2): an empty read-only region, a region that reads only
 * ordinary (volatile) data, and a region that reads 8 words of the heap, in
 * ns per region on one thread; the bare loop (no region) for reference.
 * One JSON line per kind:
 *   {"bench":"region_cost","kind":"empty","engine":"romulus","ns":12.3}
 *
 *   region_cost [--regions R] [--reps N] [--kind NAME]
 * (the median of N timed passes, after one untimed; --kind: that one only).
 * On a loaded machine, count instructions instead of timing: valgrind
 * --tool=callgrind --toggle-collect=pass counts the timed loops only
 * (bench/README.md, "region_cost").
 * Build with amber-cc (bench/README.md, "region_cost"). */
#include <amber.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORDS 8

static long regions = 2000000, reps = 5;
static const char *only;
static long ordinary[WORDS] = {1, 2, 3, 4, 5, 6, 7, 8};
static long *persistent;
static volatile long sink;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* noinline: the reads go through a pointer the pass cannot prove private. */
__attribute__((noinline)) static long sum(const long *a) {
  long s = 0;
  for (int i = 0; i < WORDS; i++) s += a[i];
  return s;
}

enum kind { K_BARE, K_EMPTY, K_ORDINARY, K_PERSISTENT, K_N };
static const char *kind_name[K_N] = {"bare", "empty", "ordinary-reads", "persistent-reads"};

__attribute__((noinline)) static double pass(enum kind k) {
  long s = 0;
  uint64_t t0 = now_ns();
  for (long r = 0; r < regions; r++) {
    switch (k) {
    case K_BARE: s += sum(ordinary); break;
    case K_EMPTY:
      AMBER_ATOMIC { s += 1; }
      break;
    case K_ORDINARY:
      AMBER_ATOMIC { s += sum(ordinary); }
      break;
    case K_PERSISTENT:
      AMBER_ATOMIC { s += sum(persistent); }
      break;
    default: break;
    }
  }
  uint64_t t1 = now_ns();
  /* Every region saw what was there: the words sum to 36, the empty one adds 1. */
  if (s != regions * (k == K_EMPTY ? 1 : 36)) {
    fprintf(stderr, "region_cost: error: kind %s summed %ld over %ld regions, not %ld\n", kind_name[k], s, regions,
            regions * (k == K_EMPTY ? 1 : 36));
    exit(1);
  }
  sink = s;
  return (double)(t1 - t0) / (double)regions;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--regions") && i + 1 < argc) regions = atol(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atol(argv[++i]);
    else if (!strcmp(argv[i], "--kind") && i + 1 < argc) only = argv[++i];
    else {
      fprintf(stderr, "usage: region_cost [--regions R] [--reps N] [--kind bare|empty|ordinary-reads|persistent-reads]\n");
      return 2;
    }
  }
  if (regions < 1 || reps < 1 || reps > 100) {
    fprintf(stderr, "region_cost: --regions and --reps must be positive (reps at most 100)\n");
    return 2;
  }
  persistent = amber_root(WORDS * sizeof(long));
  AMBER_ATOMIC {
    for (int i = 0; i < WORDS; i++) persistent[i] = i + 1;
  }
  const char *engine = getenv("AMBER_ENGINE");
  for (int k = 0; k < K_N; k++) {
    if (only && strcmp(only, kind_name[k])) continue;
    double ns[100];
    pass((enum kind)k); /* warm-up */
    for (long r = 0; r < reps; r++) ns[r] = pass((enum kind)k);
    qsort(ns, (size_t)reps, sizeof ns[0], cmp);
    printf("{\"bench\":\"region_cost\",\"kind\":\"%s\",\"engine\":\"%s\",\"regions\":%ld,\"ns\":%.2f}\n", kind_name[k],
           engine ? engine : "default", regions, ns[reps / 2]);
  }
  return 0;
}
