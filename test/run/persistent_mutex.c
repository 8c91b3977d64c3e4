// AMBER_PERSISTENT: failure-atomic sections whose isolation comes from the
// program's own pthread mutex; four threads, exact totals.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 4
#define ITERS 2000

struct root { long count; long per_thread[THREADS]; long ring[64]; long sum; };

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

int main(void) {
  pthread_t t[THREADS];
  r = amber_root(sizeof *r);
  for (long i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  long per = 0;
  for (int i = 0; i < THREADS; i++)
    per += r->per_thread[i] == r->count / THREADS;
  printf("count %ld sum %ld even %ld\n", r->count, r->sum, per);
  return 0;
}
// FIRST: count 8000 sum 20000 even 4
// SECOND: count 16000 sum 40000 even 4
