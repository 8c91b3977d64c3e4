// mvcc engine: grace periods come from the detector thread.  A forced
// schedule (no timing): A commits 40 versions (written back at once with
// AMBER_MVCC_EAGER=1, so unlinked), then B enters a read-only transaction and stays in it; A's next
// transaction reclaims the unlinked copies, which may not be freed while B
// runs: A asks for a grace period, the detector starts and waits for B.  B
// leaves, and the slots are freed.  A single-threaded run never starts the
// detector.  (How many grace periods the detector has finished when the
// statistics are written depends on scheduling: not asserted.)
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc AMBER_MVCC_EAGER=1 AMBER_MVCC_TLOG=8K AMBER_STATS_FILE=%t.json %run %t | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json
// RUN: env AMBER_ENGINE=mvcc AMBER_MVCC_EAGER=1 AMBER_MVCC_TLOG=8K AMBER_STATS_FILE=%t1.json %run %t single | FileCheck %s
// RUN: FileCheck %s --check-prefix=SINGLE < %t1.json
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define BLOCKS 40
struct root { long v[BLOCKS * 8]; };
static struct root *r;
static int b_in, a_done;

static void *b_main(void *arg) {
  (void)arg;
  long s = 0;
  AMBER_ATOMIC_ISO(AMBER_SI) {
    s = r->v[0];
    __atomic_store_n(&b_in, 1, __ATOMIC_SEQ_CST);
    while (!__atomic_load_n(&a_done, __ATOMIC_SEQ_CST)) {
    }
  }
  return (void *)s;
}

int main(int argc, char **argv) {
  r = amber_root(sizeof *r);
  int single = argc > 1 && !strcmp(argv[1], "single");
  AMBER_ATOMIC {
    for (int i = 0; i < BLOCKS; i++) r->v[i * 8] = i;
  }
  pthread_t b;
  if (!single) {
    pthread_create(&b, NULL, b_main, NULL);
    while (!__atomic_load_n(&b_in, __ATOMIC_SEQ_CST)) {
    }
  }
  AMBER_ATOMIC { r->v[0] += 100; } /* begins above half full: reclaims, asks for a grace period */
  __atomic_store_n(&a_done, 1, __ATOMIC_SEQ_CST);
  if (!single) pthread_join(b, NULL);
  AMBER_ATOMIC { r->v[8] += 100; } /* the grace period is over: the slots are freed */
  long s = 0;
  AMBER_ATOMIC {
    for (int i = 0; i < BLOCKS; i++) s += r->v[i * 8];
  }
  printf("sum %ld\n", s);
  return 0;
}
// CHECK: sum 980
// STATS: "tlog_freed_copies": {{[1-9][0-9]*}}
// STATS-SAME: "grace_periods": {{[0-9]+}}, "grace_detector": 1
// SINGLE: "grace_periods": 0, "grace_detector": 0
