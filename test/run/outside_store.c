// Persistent writes outside any region (a store, an atomic add, memset,
// memcpy, strcpy) are each a small transaction of their own: a crash in a
// later region does not take them back, and recovery is idempotent.
// RUN: %amber_cc -O2 %s -o %t
// RUN: not --crash %run %t write
// RUN: %rerun %t show | FileCheck %s
// RUN: %rerun %t show | FileCheck %s
// RUN: %amber_cc -O0 %s -o %t0
// RUN: not --crash %run %t0 write
// RUN: %rerun %t0 show | FileCheck %s
#include <amber.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

struct root {
  long x;
  char pad1[120];
  long counter;
  char pad2[120];
  char block[64];
  char name[32];
  long y;
  char pad3[120];
  long z;
};

__attribute__((noinline)) void fill(struct root *r, const char *src) {
  memset(r->block, 'b', sizeof r->block - 1);
  memcpy(r->block, src, 3);
  strcpy(r->name, "persisted");
}

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  if (argc > 1 && !strcmp(argv[1], "show")) {
    printf("x %ld counter %ld block %.5s name %s y %ld z %ld\n", r->x,
           r->counter, r->block, r->name, r->y, r->z);
    return 0;
  }
  long local[4] = {1, 2, 3, 4}; /* volatile data: no transaction */
  local[argc & 3] = 7;
  r->x = 5 + local[3] - 4;                         /* outside any region */
  __atomic_fetch_add(&r->counter, 3, __ATOMIC_SEQ_CST);
  fill(r, "abc");
  AMBER_ATOMIC { r->y = 1; }                       /* commits */
  AMBER_ATOMIC {
    r->z = 1;
    raise(SIGKILL);                                /* crash inside a region */
  }
  return 0;
}
// CHECK: x 5 counter 3 block abcbb name persisted y 1 z 0
