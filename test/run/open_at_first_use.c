// The heap opens at its first use, not before main: a program built with
// amber-cc that never uses a heap creates no heap file; one that uses it
// opens it at its first region, from whichever thread gets there first
// (here four at once), and recovery runs then.
// RUN: %amber_cc -O1 %s -o %t -pthread
// RUN: rm -f %t.heap
// RUN: env AMBER_VERBOSE=1 AMBER_HEAP=%t.heap %t none 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not test -e %t.heap
// RUN: env AMBER_VERBOSE=1 AMBER_HEAP=%t.heap %t threads 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: test -e %t.heap
// RUN: env AMBER_HEAP=%t.heap %t threads 2>&1 | FileCheck %s --check-prefix=AGAIN
// NONE: main started
// NONE-NOT: amber:
// NONE: sum 45
// THREADS: main started
// THREADS-NEXT: amber: {{(created|opened)}} heap
// THREADS: count 4 (warm 1)
// AGAIN: count 8 (warm 1)
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct root { long count; };
static struct root *r;
static pthread_barrier_t go;

static void *worker(void *arg) {
  long mine = 0;
  AMBER_ATOMIC { mine = (long)arg; } /* a first region: maybe the one that opens the heap */
  pthread_barrier_wait(&go);
  AMBER_ATOMIC { r->count += mine >= 0; }
  return NULL;
}

int main(int argc, char **argv) {
  printf("main started\n");
  fflush(stdout);
  if (argc > 1 && !strcmp(argv[1], "none")) {
    long sum = 0;
    for (int i = 0; i < 10; i++) sum += i;
    printf("sum %ld\n", sum);
    return 0;
  }
  /* Five threads race to open the heap with their first region; the root
   * is made after, and the workers use it once the barrier lets them. */
  pthread_t t[4];
  pthread_barrier_init(&go, NULL, 5);
  for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  long warm = 0;
  AMBER_ATOMIC { warm = 1; } /* main opens too: whoever is first */
  r = amber_root(sizeof *r);
  pthread_barrier_wait(&go);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  long c = 0;
  AMBER_ATOMIC { c = r->count; }
  printf("count %ld (warm %ld)\n", c, warm);
  return 0;
}
