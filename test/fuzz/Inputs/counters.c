/* Damage-test workload for the mvcc logs: T threads, each committing to
 * its own slot, so each thread's OLog ring holds its own transactions.
 *
 *   counters run N T   T threads, each does N transactions (count += 1,
 *                      sum += count, hist[count % 8] = count), printing
 *                      "ack THREAD COUNT" after each commit; then, with a
 *                      third argument "kill", the process kills itself
 *                      (the heap stays dirty, its logs live)
 *   counters check     prints "thread I count C" for every slot, and
 *                      "check: ok" when each slot is consistent
 */
#include <amber.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 4

struct slot {
  long count, sum, hist[8];
  char pad[64];
};

struct root {
  struct slot slot[SLOTS];
};

static struct root *r;
static long n_each;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t done; /* with "kill": the workers stay alive, so their logs are not written back at thread exit */
static int killing;

static void step(struct slot *s) {
  AMBER_ATOMIC {
    s->count++;
    s->sum += s->count;
    s->hist[s->count % 8] = s->count;
  }
}

static void *worker(void *arg) {
  long i = (long)arg;
  struct slot *s = &r->slot[i];
  while (s->count < n_each) {
    step(s);
    pthread_mutex_lock(&out);
    printf("ack %ld %ld\n", i, s->count);
    fflush(stdout);
    pthread_mutex_unlock(&out);
  }
  if (killing) {
    pthread_barrier_wait(&done);
    for (;;) pause();
  }
  return NULL;
}

int main(int argc, char **argv) {
  r = amber_root(sizeof *r);
  if (argc > 3 && !strcmp(argv[1], "run")) {
    n_each = atol(argv[2]);
    long t = atol(argv[3]);
    if (t < 1 || t > SLOTS) return 2;
    killing = argc > 4 && !strcmp(argv[4], "kill");
    pthread_barrier_init(&done, NULL, (unsigned)t + 1);
    pthread_t th[SLOTS];
    for (long i = 0; i < t; i++) pthread_create(&th[i], NULL, worker, (void *)i);
    if (killing) {
      pthread_barrier_wait(&done);
      raise(SIGKILL);
    }
    for (long i = 0; i < t; i++) pthread_join(th[i], NULL);
    return 0;
  }
  int ok = 1;
  for (int i = 0; i < SLOTS; i++) {
    struct slot *s = &r->slot[i];
    long c = s->count;
    if (s->sum != c * (c + 1) / 2) ok = 0;
    for (long k = c; k > c - 8 && k > 0; k--)
      if (s->hist[k % 8] != k) ok = 0;
    printf("thread %d count %ld\n", i, c);
  }
  printf("check: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
