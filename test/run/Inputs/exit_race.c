/* exit() while other threads commit (issue 17 part 1).
 *   exit_race run SEED   workers loop AMBER_ATOMIC { ++count } and write
 *                        "ack N" after each commit; main calls exit(0) after
 *                        a seeded delay, while they still commit.
 *   exit_race show       prints "found N": the count the next open finds.
 * Every acknowledged commit must be found: found >= the highest ack. */
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct root { long count; long pad[7]; long spread[64]; };
static struct root *r;
static unsigned seed;

static void *worker(void *arg) {
  unsigned s = seed * 7919u + (unsigned)(long)arg;
  for (;;) {
    long v;
    unsigned k = (s = s * 1103515245u + 12345u) >> 16;
    AMBER_ATOMIC {
      v = ++r->count;
      r->spread[k % 64] += v; /* a second block, so write-back has work */
    }
    char line[32];
    int n = snprintf(line, sizeof line, "ack %ld\n", v);
    if (write(1, line, (size_t)n) != n) abort();
  }
  return NULL;
}

int main(int argc, char **argv) {
  r = amber_root(sizeof *r);
  if (argc > 1 && !strcmp(argv[1], "show")) {
    printf("found %ld\n", r->count);
    return 0;
  }
  seed = argc > 2 ? (unsigned)atoi(argv[2]) : 1;
  int threads = 2 + (int)(seed % 3);
  long ms = 5 + (long)(seed * 37u % 40u);
  printf("threads %d\n", threads);
  fflush(stdout);
  for (long i = 0; i < threads; i++) {
    pthread_t t;
    if (pthread_create(&t, NULL, worker, (void *)i)) abort();
  }
  struct timespec d = {0, ms * 1000000L};
  nanosleep(&d, NULL);
  exit(0);
}
