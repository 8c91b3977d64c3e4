// exit() while another thread sleeps inside a region (issue 17 part 7): the
// close waits AMBER_EXIT_WAIT ms for it, not for the region, then leaves the
// heap dirty and recoverable with a warning; the process exits 0.  The next
// open recovers every commit before it and none of the sleeping region.
// The region sleeps 600 s: `timeout 60` is only a hang bound.
// RUN: %amber_cc -O1 %s -o %t
// RUN: env AMBER_EXIT_WAIT=200 timeout 60 %run %t 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=DIRTY
// RUN: %rerun %t show 2>&1 | FileCheck %s --check-prefix=SHOW
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=CLEAN
// RUN: %amber check %t.heap
//
// The same on romulus (the sleeper holds the writer lock).
// RUN: env AMBER_ENGINE=romulus AMBER_EXIT_WAIT=200 timeout 60 %run %t 2>&1 | FileCheck %s --check-prefix=EXIT
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=DIRTY
// RUN: %rerun %t show 2>&1 | FileCheck %s --check-prefix=SHOW
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=CLEAN
// RUN: %amber check %t.heap
//
// AMBER_EXIT_WAIT=0 does not wait at all; a sleeping reader holds the close
// too (mvcc, and romulus, whose close waits for readers).
// RUN: env AMBER_EXIT_WAIT=0 timeout 60 %run %t reader 2>&1 | FileCheck %s --check-prefix=EXIT0
// RUN: %rerun %t show 2>&1 | FileCheck %s --check-prefix=SHOW
// RUN: env AMBER_ENGINE=romulus AMBER_EXIT_WAIT=0 timeout 60 %run %t reader 2>&1 | FileCheck %s --check-prefix=EXIT0
// RUN: %rerun %t show 2>&1 | FileCheck %s --check-prefix=SHOW
//
// A value over an hour is refused before the heap is touched.
// RUN: rm -f %t.heap && env AMBER_EXIT_WAIT=3600001 not %run %t 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: test ! -e %t.heap
//
// EXIT: committed 10
// EXIT-NEXT: amber: warning: heap {{.*}} left dirty: 1 transaction was still running on other threads after AMBER_EXIT_WAIT=200 ms
// EXIT-NOT: amber:
// DIRTY: state        dirty
// SHOW-NOT: amber:
// SHOW: commits 10 x 0 y 0
// CLEAN: state        clean
// EXIT0: committed 10
// EXIT0-NEXT: amber: warning: heap {{.*}} left dirty: 1 transaction was still running on other threads after AMBER_EXIT_WAIT=0 ms
// BAD: amber: error: AMBER_EXIT_WAIT=3600001 is more than an hour
#include <amber.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct root { long commits, x, y; };
static struct root *r;
static sem_t inside;

static void *writer(void *arg) {
  (void)arg;
  AMBER_ATOMIC {
    r->x = 1;
    sem_post(&inside);
    sleep(600);
    r->y = 1;
  }
  return NULL;
}

static void *reader(void *arg) {
  long *seen = arg;
  AMBER_ATOMIC {
    *seen = r->commits;
    sem_post(&inside);
    sleep(600);
  }
  return NULL;
}

int main(int argc, char **argv) {
  r = amber_root(sizeof *r);
  if (argc > 1 && !strcmp(argv[1], "show")) {
    printf("commits %ld x %ld y %ld\n", r->commits, r->x, r->y);
    return 0;
  }
  AMBER_ATOMIC { r->commits = 0; }
  for (int i = 0; i < 10; i++)
    AMBER_ATOMIC { r->commits++; }
  /* Before the sleeper starts: an irrevocable region (sleep) runs alone,
   * and reads outside regions wait for it too. */
  printf("committed %ld\n", r->commits);
  fflush(stdout);
  sem_init(&inside, 0, 0);
  static long seen;
  pthread_t t;
  if (pthread_create(&t, NULL, argc > 1 ? reader : writer, &seen)) abort();
  sem_wait(&inside);
  exit(0);
}
