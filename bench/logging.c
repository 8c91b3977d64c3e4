/* The cost of output inside regions: each region bumps a persistent counter
 * and prints one line about it with fprintf (docs/guide.md 2.3, "Output":
 * the line is held until the region commits).  --threads T threads do it at
 * once, each on its own counter, or with --shared all on one counter, so
 * that their regions conflict, abort and re-run.  Prints one JSON line:
 * regions per second and microseconds each.  --out FILE writes the lines
 * there instead of /dev/null; --verify (needs --out) then checks that the
 * file holds each thread's lines exactly once, in order, and the counters.
 *   logging --regions N [--threads T] [--shared] [--out FILE [--verify]] */
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXT 64

struct root { long count[MAXT][8]; long shared; }; /* one cache line per thread */
static struct root *r;
static FILE *out;
static long regions = 100000;
static int shared;

static void *worker(void *arg) {
  long id = (long)arg;
  for (long i = 0; i < regions; i++) {
    AMBER_ATOMIC {
      long v = shared ? ++r->shared : ++r->count[id][0];
      fprintf(out, "thread %ld region %ld value %ld\n", id, i, v);
    }
  }
  return NULL;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The file holds threads * regions lines; thread t's are 0..regions-1 in
 * order; with --shared the values are 1..total, each once. */
static long verify(const char *path, long threads) {
  FILE *f = fopen(path, "r");
  if (!f) {
    perror(path);
    return 1;
  }
  long bad = 0, lines = 0, next[MAXT] = {0}, t, i, v;
  long total = threads * regions;
  char *seen = calloc((size_t)total + 1, 1);
  while (fscanf(f, "thread %ld region %ld value %ld\n", &t, &i, &v) == 3) {
    lines++;
    if (t < 0 || t >= threads || i != next[t]++) bad++;
    else if (shared ? (v < 1 || v > total || seen[v]++) : v != i + 1) bad++;
  }
  fclose(f);
  free(seen);
  bad += lines != total;
  for (t = 0; t < threads; t++) bad += !shared && r->count[t][0] != regions;
  bad += shared && r->shared != total;
  printf("verify: lines %ld of %ld, bad %ld: %s\n", lines, total, bad, bad ? "FAILED" : "ok");
  return bad;
}

int main(int argc, char **argv) {
  long threads = 1;
  int check = 0;
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--regions") && i + 1 < argc) regions = atol(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atol(argv[++i]);
    else if (!strcmp(argv[i], "--out") && i + 1 < argc) path = argv[++i];
    else if (!strcmp(argv[i], "--shared")) shared = 1;
    else if (!strcmp(argv[i], "--verify")) check = 1;
    else {
      fprintf(stderr, "bench: unknown argument '%s'; usage: logging --regions N [--threads T] [--shared] [--out FILE [--verify]]\n",
              argv[i]);
      return 2;
    }
  }
  if (regions < 1 || threads < 1 || threads > MAXT || (check && !path)) {
    fprintf(stderr, "bench: --regions must be >= 1, --threads 1..%d, and --verify needs --out FILE\n", MAXT);
    return 2;
  }
  out = fopen(path ? path : "/dev/null", "w");
  if (!out) {
    perror(path ? path : "/dev/null");
    return 2;
  }
  r = amber_root(sizeof *r);
  AMBER_ATOMIC { memset(r, 0, sizeof *r); }
  pthread_t th[MAXT];
  double t0 = now();
  for (long t = 0; t < threads; t++) pthread_create(&th[t], NULL, worker, (void *)t);
  for (long t = 0; t < threads; t++) pthread_join(th[t], NULL);
  double secs = now() - t0;
  fclose(out);
  long total = threads * regions;
  printf("{\"system\": \"amber\", \"workload\": \"logging\", \"threads\": %ld, \"shared\": %d, \"regions\": %ld, "
         "\"seconds\": %.3f, \"regions_per_sec\": %.0f, \"us_per_region\": %.3f}\n",
         threads, shared, total, secs, (double)total / secs, secs / (double)total * 1e6);
  return check && verify(path, threads) != 0;
}
