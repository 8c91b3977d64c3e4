/* ordinary_access: what one access costs inside an AMBER_ATOMIC region, by
 * where the data lives (docs/guide.md 2.6): the persistent heap, ordinary
 * memory (a global array, isolated by the engine without durability), the
 * region's own frame (private: no isolation needed), and, for comparison,
 * the same loop on the ordinary array under one pthread mutex outside any
 * region, and with nothing at all.
 *
 * Each region (or mutex section) does --accesses read-modify-writes
 * (a[i] += 1, i stepping by 7 words through 1024 words of the thread's own
 * slice: no two threads touch the same word, so nothing conflicts).  The
 * empty region's time is subtracted to give ns per access.  Prints one
 * JSON line per kind and a last one with the per-access costs; --verify
 * checks every array holds exactly what the loops added.
 *
 *   ordinary_access [--accesses K] [--regions R] [--threads T] [--verify]
 * Build with amber-cc (bench/README.md, "ordinary_access"). */
#include <amber.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLICE 1024 /* words per thread */
#define MAXT 16

static long accesses = 16, regions = 200000, nthreads = 1;
static int verify;

static long ordinary[MAXT * SLICE];
static long *persistent; /* in the heap root */
static long mutex_data[MAXT * SLICE];
static long bare[MAXT * SLICE];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

enum kind { K_EMPTY, K_PERSISTENT, K_ORDINARY, K_PRIVATE, K_MUTEX, K_BARE, K_N };
static const char *kind_name[K_N] = {"empty-region", "persistent", "ordinary", "private", "mutex", "bare"};

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The loop every kind runs; noinline so the region's accesses go through a
 * pointer the pass cannot prove private. */
__attribute__((noinline)) static unsigned steps(long *a, long k, unsigned i, unsigned mask) {
  for (long j = 0; j < k; j++) {
    a[i] += 1;
    i = (i + 7) & mask;
  }
  return i;
}

struct arg {
  enum kind kind;
  long id;
  uint64_t ns;
};

static void *worker(void *p) {
  struct arg *w = p;
  long *mine = NULL;
  switch (w->kind) {
  case K_PERSISTENT: mine = persistent + w->id * SLICE; break;
  case K_ORDINARY: mine = ordinary + w->id * SLICE; break;
  case K_MUTEX: mine = mutex_data + w->id * SLICE; break;
  case K_BARE: mine = bare + w->id * SLICE; break;
  default: break;
  }
  unsigned i = 0;
  long k = accesses;
  uint64_t t0 = now_ns();
  for (long r = 0; r < regions; r++) {
    switch (w->kind) {
    case K_EMPTY:
      AMBER_ATOMIC { i = i + 1; }
      break;
    case K_PERSISTENT:
    case K_ORDINARY:
      AMBER_ATOMIC { i = steps(mine, k, i, SLICE - 1); }
      break;
    case K_PRIVATE:
      AMBER_ATOMIC {
        long local[64];
        memset(local, 0, sizeof local);
        i = steps(local, k, i & 63, 63);
      }
      break;
    case K_MUTEX:
      pthread_mutex_lock(&lock);
      i = steps(mine, k, i, SLICE - 1);
      pthread_mutex_unlock(&lock);
      break;
    case K_BARE:
      i = steps(mine, k, i, SLICE - 1);
      break;
    default: break;
    }
  }
  w->ns = now_ns() - t0;
  return NULL;
}

static double run(enum kind kind) {
  pthread_t th[MAXT];
  struct arg a[MAXT];
  for (long t = 0; t < nthreads; t++) {
    a[t] = (struct arg){kind, t, 0};
    if (pthread_create(&th[t], NULL, worker, &a[t])) {
      perror("pthread_create");
      exit(1);
    }
  }
  uint64_t ns = 0;
  for (long t = 0; t < nthreads; t++) {
    pthread_join(th[t], NULL);
    if (a[t].ns > ns) ns = a[t].ns;
  }
  return (double)ns / (double)regions; /* ns per region, slowest thread */
}

static long sum(const long *a) {
  long s = 0;
  for (long i = 0; i < nthreads * SLICE; i++) s += a[i];
  return s;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--verify")) verify = 1;
    else if (i + 1 < argc && !strcmp(argv[i], "--accesses")) accesses = atol(argv[++i]);
    else if (i + 1 < argc && !strcmp(argv[i], "--regions")) regions = atol(argv[++i]);
    else if (i + 1 < argc && !strcmp(argv[i], "--threads")) nthreads = atol(argv[++i]);
    else {
      fprintf(stderr, "usage: ordinary_access [--accesses K] [--regions R] [--threads T] [--verify]\n");
      return 2;
    }
  }
  if (accesses < 1 || regions < 1 || nthreads < 1 || nthreads > MAXT) {
    fprintf(stderr, "ordinary_access: --accesses and --regions must be positive, --threads 1..%d\n", MAXT);
    return 2;
  }
  persistent = amber_root(sizeof(long) * MAXT * SLICE);
  AMBER_ATOMIC { memset(persistent, 0, sizeof(long) * (size_t)nthreads * SLICE); } /* a heap used before */
  double ns[K_N];
  for (int k = 0; k < K_N; k++) {
    ns[k] = run((enum kind)k);
    printf("{\"bench\": \"ordinary_access\", \"kind\": \"%s\", \"threads\": %ld, \"accesses\": %ld, \"regions\": %ld, "
           "\"ns_per_region\": %.1f}\n",
           kind_name[k], nthreads, accesses, regions, ns[k]);
  }
  /* A read-modify-write is one load and one store: per access = half. */
  double per = 2.0 * (double)accesses;
  printf("{\"bench\": \"ordinary_access\", \"summary\": 1, \"threads\": %ld, \"ns_per_access_persistent\": %.2f, "
         "\"ns_per_access_ordinary\": %.2f, \"ns_per_access_private\": %.2f, \"ns_per_access_mutex\": %.2f, "
         "\"ns_per_access_bare\": %.2f, \"ordinary_region_over_mutex\": %.2f}\n",
         nthreads, (ns[K_PERSISTENT] - ns[K_EMPTY]) / per, (ns[K_ORDINARY] - ns[K_EMPTY]) / per,
         (ns[K_PRIVATE] - ns[K_EMPTY]) / per, ns[K_MUTEX] / per, ns[K_BARE] / per, ns[K_ORDINARY] / ns[K_MUTEX]);
  if (verify) {
    long want = nthreads * regions * accesses, bad = 0;
    const long *arrays[] = {persistent, ordinary, mutex_data, bare};
    const char *names[] = {"persistent", "ordinary", "mutex", "bare"};
    for (int a = 0; a < 4; a++) {
      long s = 0;
      AMBER_ATOMIC { s = sum(arrays[a]); }
      if (s != want) {
        fprintf(stderr, "ordinary_access: %s array holds %ld increments, expected %ld\n", names[a], s, want);
        bad++;
      }
    }
    if (bad) return 1;
    printf("verified %ld increments per kind\n", want);
  }
  return 0;
}
