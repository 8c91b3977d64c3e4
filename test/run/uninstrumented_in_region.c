// A region that calls code amber never instrumented (a plain-clang object)
// is irrevocable, but that code still cannot touch the heap: its write
// faults in strict mode, the runtime names it and the function (poke) and
// exits with status 2 inside the region, and recovery rolls the region back
// as after a crash, keeping the regions committed before it (under mvcc the
// region ran alone and its in-place writes are undone from the CLog).
// RUN: %clang -O1 -c %S/Inputs/poke.c -o %t.poke.o
// RUN: %amber_cc -O1 %s %t.poke.o -o %t
// RUN: not %run %t poke > %t.out 2>&1; FileCheck %s < %t.out
// RUN: %rerun %t show | FileCheck %s --check-prefix=SHOW
// RUN: %amber check %t.heap
// CHECK: amber: error: persistent memory accessed outside the runtime: write of 0x{{[0-9a-f]+}}
// CHECK: #0 0x{{[0-9a-f]+}} poke+0x{{[0-9a-f]+}} (
// CHECK-NOT: region done
// SHOW: x=0 y=1 z=0
#include <amber.h>
#include <stdio.h>
#include <string.h>

void poke(long *p, long v);
struct root { long x; char pad1[4096]; long y; char pad2[4096]; long z; };

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  if (!strcmp(argv[1], "show")) {
    printf("x=%ld y=%ld z=%ld\n", r->x, r->y, r->z);
    return 0;
  }
  AMBER_ATOMIC { r->y = 1; }
  AMBER_ATOMIC {
    r->z = 1;
    poke(&r->x, 5);
    printf("region done\n");
  }
  return 0;
}
