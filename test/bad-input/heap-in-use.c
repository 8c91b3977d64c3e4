// A heap held by another process is refused (one process per heap).
// RUN: %amber_cc -O1 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: cp %t.heap %t.orig
// RUN: flock %t.heap sh -c 'AMBER_HEAP=%t.heap LD_PRELOAD=%libamber %t; echo exit=$?' 2>&1 | FileCheck %s
// RUN: cmp %t.heap %t.orig
// FIRST: counter 1
// CHECK: amber: error: heap {{.*}} is in use by another process
// CHECK: exit=2
#include <amber.h>
#include <stdio.h>
int main(void) {
  long *r = amber_root(sizeof *r);
  AMBER_ATOMIC { *r += 1; }
  printf("counter %ld\n", *r);
  return 0;
}
