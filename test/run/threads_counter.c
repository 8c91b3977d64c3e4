// Two threads increment one persistent counter in AMBER_ATOMIC regions:
// no increment is lost, now or in the next run.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <pthread.h>
#include <stdio.h>

#define ITERS 20000

struct root { long counter; long a, b; };
static struct root *r;

static void *worker(void *arg) {
  long id = (long)arg;
  for (int i = 0; i < ITERS; i++) {
    AMBER_ATOMIC {
      r->counter++;
      if (id)
        r->b++;
      else
        r->a++;
    }
  }
  return NULL;
}

int main(void) {
  pthread_t t[2];
  r = amber_root(sizeof *r);
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  printf("counter %ld a %ld b %ld\n", r->counter, r->a, r->b);
  return 0;
}
// FIRST: counter 40000 a 20000 b 20000
// SECOND: counter 80000 a 40000 b 40000
