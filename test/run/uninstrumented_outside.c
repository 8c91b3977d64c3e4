// Code amber never instrumented (a plain-clang object linked into the
// program) that writes the heap outside regions faults in strict mode and
// with AMBER_STRICT=0 alike: the runtime names the write, its address and
// the function (poke), exits with status 2, and the heap keeps what the
// last commit left (the stray write never reaches it).  Both engines.
// RUN: %clang -O1 -c %S/Inputs/poke.c -o %t.poke.o
// RUN: %amber_cc -O1 %s %t.poke.o -o %t
// RUN: not %run %t write > %t.out 2>&1; FileCheck %s < %t.out
// RUN: env AMBER_STRICT=0 not %rerun %t write > %t.out 2>&1; FileCheck %s < %t.out
// RUN: %rerun %t show 2>&1 | FileCheck %s --check-prefix=SHOW
// RUN: %amber check %t.heap
// RUN: env AMBER_ENGINE=mvcc not %run %t write > %t.out 2>&1; FileCheck %s < %t.out
// RUN: env AMBER_ENGINE=mvcc %rerun %t show 2>&1 | FileCheck %s --check-prefix=SHOW
// RUN: %amber check %t.heap
// CHECK: x at [[ADDR:0x[0-9a-f]+]]
// CHECK-NEXT: amber: error: persistent memory accessed outside the runtime: write of [[ADDR]] (heap {{.*}}.heap offset 0x{{[0-9a-f]+}})
// CHECK: #0 0x{{[0-9a-f]+}} poke+0x{{[0-9a-f]+}} (
// CHECK: main
// CHECK-NOT: poked
// SHOW-NOT: warning
// SHOW: x=3
#include <amber.h>
#include <stdio.h>
#include <string.h>

void poke(long *p, long v);

int main(int argc, char **argv) {
  long *x = amber_root(sizeof *x);
  if (!strcmp(argv[1], "show")) {
    printf("x=%ld\n", *x);
    return 0;
  }
  AMBER_ATOMIC { *x = 3; }
  printf("x at %p\n", (void *)x);
  fflush(stdout);
  poke(x, 7);
  printf("poked\n");
  return 0;
}
