/* outside_reads: loads of persistent data outside regions per second, with
 * and without a concurrent writer (issue [1/7] part 5: such a load must
 * return the latest committed value, never a running region's store).
 *
 * The committed value of x is always 0: a writer thread (--writer) runs
 * regions that store 42 into x, write --work words of a 4 KiB array, then
 * store 0 into x again.  The reader thread loads x outside regions for
 * --seconds and counts the loads and how many returned 42 ("dirty": must be
 * 0).  --inside: the reader loads the same x inside read-only regions
 * instead, --batch loads per region (what loads in regions cost, for
 * comparison).  --cpu-time: the reader's CPU time instead of CLOCK_MONOTONIC
 * (steadier on a machine shared with other work).  Prints one JSON line.
 *
 *   outside_reads [--seconds S] [--writer] [--work N] [--inside] [--batch N] [--cpu-time]
 */
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORDS 512

struct root {
  long x;
  long pad[7];
  long words[WORDS];
};
static struct root *r;
static int stop;
static long work = 64;

static clockid_t clock_id = CLOCK_MONOTONIC;
static double now(void) {
  struct timespec t;
  clock_gettime(clock_id, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *writer(void *arg) {
  (void)arg;
  long n = 0;
  while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
    AMBER_ATOMIC { /* volatile: the compiler keeps the dead store of 42 */
      *(volatile long *)&r->x = 42;
      for (long i = 0; i < work; i++) r->words[i % WORDS] += i;
      *(volatile long *)&r->x = 0;
    }
    n++;
  }
  return (void *)n;
}

int main(int argc, char **argv) {
  double seconds = 1;
  int with_writer = 0, inside = 0;
  long batch = 100;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--writer")) with_writer = 1;
    else if (!strcmp(argv[i], "--work") && i + 1 < argc) work = atol(argv[++i]);
    else if (!strcmp(argv[i], "--inside")) inside = 1;
    else if (!strcmp(argv[i], "--batch") && i + 1 < argc) batch = atol(argv[++i]);
    else if (!strcmp(argv[i], "--cpu-time")) clock_id = CLOCK_THREAD_CPUTIME_ID;
    else {
      fprintf(stderr, "bench: unknown argument '%s'; usage: outside_reads [--seconds S] [--writer] [--work N] [--inside] [--batch N] [--cpu-time]\n",
              argv[i]);
      return 2;
    }
  }
  if (seconds <= 0 || work < 0 || batch < 1) {
    fprintf(stderr, "bench: --seconds must be > 0, --work >= 0, --batch >= 1\n");
    return 2;
  }
  r = amber_root(sizeof *r);
  AMBER_ATOMIC { r->x = 0; }
  pthread_t w;
  if (with_writer) pthread_create(&w, NULL, writer, NULL);
  long loads = 0, dirty = 0;
  double t0 = now(), t = t0;
  while (t - t0 < seconds) {
    if (inside) {
      for (int k = 0; k < 100; k++) {
        long d = 0;
        AMBER_ATOMIC {
          d = 0;
          for (long i = 0; i < batch; i++) d += *(volatile long *)&r->x == 42;
        }
        dirty += d;
        loads += batch;
      }
    } else {
      for (int k = 0; k < 10000; k++) dirty += *(volatile long *)&r->x == 42;
      loads += 10000;
    }
    t = now();
  }
  double secs = t - t0;
  __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
  long commits = 0;
  if (with_writer) {
    void *n;
    pthread_join(w, &n);
    commits = (long)n;
  }
  printf("{\"workload\": \"outside_reads\", \"where\": \"%s\", \"writer\": %d, \"work\": %ld, \"clock\": \"%s\", "
         "\"seconds\": %.3f, \"loads\": %ld, \"loads_per_s\": %.0f, \"dirty\": %ld, \"writer_commits\": %ld}\n",
         inside ? "inside" : "outside", with_writer, work, clock_id == CLOCK_MONOTONIC ? "wall" : "cpu", secs, loads,
         (double)loads / secs, dirty, commits);
  return dirty != 0;
}
