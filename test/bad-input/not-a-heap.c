// A file that is not an amber heap is refused and left byte-for-byte as it was.
// RUN: %amber_cc -O1 %s -o %t
// RUN: head -c 100000 /dev/urandom > %t.heap && cp %t.heap %t.orig
// RUN: not %rerun %t 2>&1 | FileCheck %s
// RUN: cmp %t.heap %t.orig
// RUN: not %amber check %t.heap 2>&1 | FileCheck %s
// CHECK: amber: error: {{.*}}.heap is not an amber heap
#include <amber.h>
#include <stdio.h>
int main(void) {
  long *r = amber_root(sizeof *r);
  AMBER_ATOMIC { *r += 1; }
  printf("%ld\n", *r);
  return 0;
}
