// amber_root: zeroed on the first run, the same object with the same contents
// on the next run; asking twice in one run gives the same object.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t > %t.out
// RUN: %rerun %t >> %t.out
// RUN: FileCheck %s < %t.out
#include <amber.h>
#include <stdio.h>

struct root {
  long runs;
  long data[255];
};

int main(void) {
  struct root *r = amber_root(sizeof *r);
  long nonzero = 0, sum = 0;
  for (int i = 0; i < 255; i++) {
    nonzero += r->data[i] != 0;
    sum += r->data[i];
  }
  printf("root %p runs %ld nonzero %ld sum %ld\n", (void *)r, r->runs, nonzero, sum);
  printf("again %s\n", amber_root(sizeof *r) == r ? "same" : "different");
  AMBER_ATOMIC {
    r->runs++;
    for (int i = 0; i < 255; i++)
      r->data[i] = i + 1;
  }
  return 0;
}
// CHECK: root [[ROOT:0x[0-9a-f]+]] runs 0 nonzero 0 sum 0
// CHECK-NEXT: again same
// CHECK-NEXT: root [[ROOT]] runs 1 nonzero 255 sum 32640
// CHECK-NEXT: again same
