// The msync backend's gathering (docs/engines/msync.md, "Gathering"):
// commits stay correct with it on and off, and its counters are consistent.
// Deterministic facts only (whether a leader finds a sibling depends on
// timing): one thread never waits (no sibling), AMBER_PM_GROUP_WAIT=0
// never waits, every wait ended one way or the other, and a bad value is
// an error.  Leaders gather only with one sync at a time
// (AMBER_PM_MSYNC_PARALLEL=1; docs/engines/msync.md, "Overlapping
// syncs"): with the default 4, none waits.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc AMBER_PM=msync AMBER_PM_MSYNC_PARALLEL=1 AMBER_STATS_FILE=%t.4.json %run %t 4 | FileCheck %s --check-prefix=FOUR
// RUN: %python %S/Inputs/pm_group_wait_check.py %t.4.json any
// RUN: env AMBER_ENGINE=mvcc AMBER_PM=msync AMBER_STATS_FILE=%t.par.json %run %t 4 | FileCheck %s --check-prefix=FOUR
// RUN: %python %S/Inputs/pm_group_wait_check.py %t.par.json none
// RUN: env AMBER_ENGINE=mvcc AMBER_PM=msync AMBER_PM_MSYNC_PARALLEL=64 AMBER_STATS_FILE=%t.64.json %run %t 4 | FileCheck %s --check-prefix=FOUR
// RUN: %python %S/Inputs/pm_group_wait_check.py %t.64.json none
// RUN: env AMBER_ENGINE=mvcc AMBER_PM=msync AMBER_PM_GROUP_WAIT=0 AMBER_STATS_FILE=%t.off.json %run %t 4 | FileCheck %s --check-prefix=FOUR
// RUN: %python %S/Inputs/pm_group_wait_check.py %t.off.json none
// RUN: env AMBER_ENGINE=mvcc AMBER_PM=msync AMBER_PM_GROUP_WAIT=1000 AMBER_STATS_FILE=%t.1.json %run %t 1 | FileCheck %s --check-prefix=ONE
// RUN: %python %S/Inputs/pm_group_wait_check.py %t.1.json none
// RUN: env AMBER_PM_GROUP_WAIT=1001 not %run %t 1 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: env AMBER_PM_MSYNC_PARALLEL=0 not %run %t 1 2>&1 | FileCheck %s --check-prefix=BADPAR0
// RUN: env AMBER_PM_MSYNC_PARALLEL=65 not %run %t 1 2>&1 | FileCheck %s --check-prefix=BADPAR65
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 150
static long *r;

static void *worker(void *arg) {
  long t = (long)arg;
  for (int i = 0; i < N; i++)
    AMBER_ATOMIC {
      r[8 * (t + 1)] += 1; /* its own block */
      r[0] += 1;           /* shared: commits that conflict */
    }
  return NULL;
}

int main(int argc, char **argv) {
  int nt = argc > 1 ? atoi(argv[1]) : 1;
  r = amber_root(64 * sizeof(long));
  pthread_t th[8];
  if (nt == 1) { /* this thread alone: nobody else ever publishes */
    worker(0);
  } else {
    for (long t = 0; t < nt; t++) pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < nt; t++) pthread_join(th[t], NULL);
  }
  long own = 0;
  for (int t = 0; t < nt; t++) own += r[8 * (t + 1)];
  printf("shared %ld own %ld\n", r[0], own);
  return 0;
}
// FOUR: shared 600 own 600
// ONE: shared 150 own 150
// BAD: amber: error: AMBER_PM_GROUP_WAIT=1001 is out of range
// BADPAR0: amber: error: AMBER_PM_MSYNC_PARALLEL=0 is out of range
// BADPAR65: amber: error: AMBER_PM_MSYNC_PARALLEL=65 is out of range
