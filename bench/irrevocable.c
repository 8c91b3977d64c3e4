/* The cost of irrevocable regions: each region sorts a small stack array
 * (qsort, which runs in the region's transaction), formats its number with
 * libc's snprintf (code amber cannot instrument: the region becomes
 * irrevocable) and stores both in the heap, while --threads T - 1 other threads run ordinary update regions
 * on their own counters.  Prints one JSON line: irrevocable regions per
 * second and microseconds each, the other threads' commits.  --verify
 * checks every stored value and counter.
 *   irrevocable --regions 20000 [--threads 2] [--verify] */
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOTS 64
#define MAXT 64

struct root { long sorted[SLOTS][4]; long count[MAXT]; long done, digits; };
static struct root *r;
static volatile int stop;

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static void *other(void *arg) {
  long id = (long)arg, n = 0;
  while (!stop) {
    AMBER_ATOMIC { r->count[id]++; }
    n++;
  }
  return (void *)n;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  long regions = 20000, threads = 1;
  int verify = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--regions") && i + 1 < argc) regions = atol(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atol(argv[++i]);
    else if (!strcmp(argv[i], "--verify")) verify = 1;
    else {
      fprintf(stderr, "bench: unknown argument '%s'; usage: irrevocable --regions N [--threads T] [--verify]\n", argv[i]);
      return 2;
    }
  }
  if (regions < 1 || threads < 1 || threads > MAXT) {
    fprintf(stderr, "bench: --regions must be >= 1 and --threads 1..%d\n", MAXT);
    return 2;
  }
  r = amber_root(sizeof *r);
  AMBER_ATOMIC { memset(r, 0, sizeof *r); }
  pthread_t th[MAXT];
  for (long t = 1; t < threads; t++) pthread_create(&th[t], NULL, other, (void *)t);
  double t0 = now();
  for (long i = 0; i < regions; i++) {
    AMBER_ATOMIC {
      long v[4] = {i + 3, i, i + 2, i + 1};
      char digits[24];
      qsort(v, 4, sizeof *v, cmp_long);
      int len = snprintf(digits, sizeof digits, "%ld", i); /* irrevocable */
      memcpy(r->sorted[i % SLOTS], v, sizeof v);
      r->done = i + 1;
      r->digits = len;
    }
  }
  double secs = now() - t0;
  stop = 1;
  long others = 0, counted[MAXT] = {0};
  for (long t = 1; t < threads; t++) {
    void *n;
    pthread_join(th[t], &n);
    counted[t] = (long)n;
    others += (long)n;
  }
  printf("{\"system\": \"amber\", \"workload\": \"irrevocable\", \"threads\": %ld, \"regions\": %ld, \"seconds\": %.3f, "
         "\"irrevocable_per_sec\": %.0f, \"us_per_irrevocable\": %.2f, \"other_commits\": %ld}\n",
         threads, regions, secs, (double)regions / secs, secs / (double)regions * 1e6, others);
  if (verify) {
    long bad = 0;
    for (long s = 0; s < SLOTS && s < regions; s++) {
      long i = s + (regions - 1 - s) / SLOTS * SLOTS; /* the last region that wrote slot s */
      for (int k = 0; k < 4; k++) bad += r->sorted[s][k] != i + k;
    }
    for (long t = 1; t < threads; t++) bad += r->count[t] != counted[t];
    bad += r->done != regions;
    bad += r->digits != snprintf(NULL, 0, "%ld", regions - 1);
    printf("verify: bad %ld: %s\n", bad, bad ? "FAILED" : "ok");
    return bad != 0;
  }
  return 0;
}
