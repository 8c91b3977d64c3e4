// AMBER_HEAP_SIZE that disagrees with an existing heap, and a truncated heap
// file, are refused without touching the file.
// RUN: %amber_cc -O1 %s -o %t
// RUN: env AMBER_HEAP_SIZE=4M %run %t | FileCheck %s --check-prefix=FIRST
// RUN: cp %t.heap %t.orig
// RUN: env AMBER_HEAP_SIZE=8M not %rerun %t 2>&1 | FileCheck %s --check-prefix=SIZE
// RUN: cmp %t.heap %t.orig
// RUN: truncate -s -4096 %t.heap && cp %t.heap %t.orig2
// RUN: env AMBER_HEAP_SIZE=4M not %rerun %t 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: cmp %t.heap %t.orig2
// FIRST: counter 1
// SIZE: amber: error: heap {{.*}} holds 4194304 bytes but AMBER_HEAP_SIZE=8388608
// TRUNC: amber: error: heap {{.*}} is {{[0-9]+}} bytes but its header says {{[0-9]+}}; the file was truncated
#include <amber.h>
#include <stdio.h>
int main(void) {
  long *r = amber_root(sizeof *r);
  AMBER_ATOMIC { *r += 1; }
  printf("counter %ld\n", *r);
  return 0;
}
