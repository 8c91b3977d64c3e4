// mvcc engine: AMBER_PERSISTENT regions whose isolation comes from the
// program's own pthread mutex never abort: two threads, exact totals, and
// zero aborts in the statistics.  With "mixed", a third thread runs
// AMBER_ATOMIC transactions on other fields of the same blocks: the block
// locks conflict, the AMBER_ATOMIC transactions yield (abort and re-run),
// and every total is still exact.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.json %run %t | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json
// RUN: env AMBER_ENGINE=mvcc %run %t mixed | FileCheck %s --check-prefix=MIXED
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define THREADS 2
#define ITERS 3000

/* count, per_thread and atomic_count share one 64-byte block. */
struct root { long count; long per_thread[THREADS]; long atomic_count; long ring[64]; long sum; };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct root *r;

static void *worker(void *arg) {
  long id = (long)arg;
  for (int i = 0; i < ITERS; i++) {
    pthread_mutex_lock(&lock);
    AMBER_PERSISTENT {
      r->ring[r->count % 64] = id;
      r->count++;
      r->per_thread[id]++;
      r->sum += id + 1;
    }
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static void *atomic_worker(void *arg) {
  (void)arg;
  for (int i = 0; i < ITERS; i++)
    AMBER_ATOMIC { r->atomic_count++; }
  return NULL;
}

int main(int argc, char **argv) {
  int mixed = argc > 1 && !strcmp(argv[1], "mixed");
  pthread_t t[THREADS], a;
  r = amber_root(sizeof *r);
  if (mixed) pthread_create(&a, NULL, atomic_worker, NULL);
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  if (mixed) pthread_join(a, NULL);
  printf("count %ld sum %ld per %ld %ld atomic %ld\n", r->count, r->sum, r->per_thread[0], r->per_thread[1], r->atomic_count);
  return 0;
}
// CHECK: count 6000 sum 9000 per 3000 3000 atomic 0
// STATS: "aborts": 0,
// MIXED: count 6000 sum 9000 per 3000 3000 atomic 3000
