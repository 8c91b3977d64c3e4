// mvcc engine: a thread's OLog ring past three quarters recycles, and runs
// a checkpoint round when it must, as its next transaction begins, so a
// commit does not find its ring full and run the round itself while it
// holds its blocks' locks (docs/engines/mvcc.md, Durability item 2).  With
// a 64 KiB ring, 4000 commits of about 300-byte records fill it some 18
// times over: checkpoint rounds run, none inside a commit
// ("olog_full_rounds": 0, single thread, so the begin's round always gets
// the round lock), and the data survive a kill -9 and a reopen.
// RUN: %amber_cc -O2 %s -o %t
// RUN: env AMBER_ENGINE=mvcc AMBER_MVCC_OLOG=64K AMBER_STATS_FILE=%t.json %run %t run 4000 | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: not --crash %rerun %t kill 1000 | FileCheck %s --check-prefix=KILLED
// RUN: %rerun %t check 5000 | FileCheck %s --check-prefix=CHECK
// RUN: %amber check %t.heap
// OUT: 4000 commits
// JSON: "checkpoint_rounds": {{[1-9][0-9]*}},
// JSON-SAME: "olog_full_rounds": 0
// KILLED: 1000 commits
// CHECK: sum ok after 5000 commits
#include <amber.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS 64
struct root { long n; long v[BLOCKS * 8]; };

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  long n = argc > 2 ? atol(argv[2]) : 0;
  if (!strcmp(argv[1], "check")) {
    long s = 0;
    for (int i = 0; i < BLOCKS * 8; i++) s += r->v[i];
    /* every commit added 1 to 8 words */
    printf("sum %s after %ld commits\n", s == 8 * r->n && r->n == n ? "ok" : "WRONG", r->n);
    return 0;
  }
  for (long k = 0; k < n; k++) {
    AMBER_ATOMIC {
      for (int j = 0; j < 8; j++) r->v[((k * 8 + j) % BLOCKS) * 8 + j] += 1; /* 8 blocks, 8 bytes each */
      r->n++;
    }
  }
  printf("%ld commits\n", n);
  fflush(stdout);
  if (!strcmp(argv[1], "kill")) raise(SIGKILL);
  return 0;
}
