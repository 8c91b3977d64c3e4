// A region that calls code amber never instrumented (a plain-clang object)
// is irrevocable, and its unlogged writes to the heap still commit as a unit:
// a crash in a later region does not roll them back.
// RUN: %clang -O1 -c %S/Inputs/poke.c -o %t.poke.o
// RUN: %amber_cc -O1 %s %t.poke.o -o %t
// RUN: not --crash %run %t crash
// RUN: %rerun %t show | FileCheck %s
// CHECK: x=5 y=1 z=0
// RUN: %amber check %t.heap
#include <amber.h>
#include <signal.h>
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
  AMBER_ATOMIC { poke(&r->x, 5); }
  AMBER_ATOMIC { r->y = 1; }
  AMBER_ATOMIC {
    r->z = 1;
    raise(SIGKILL);
  }
  return 0;
}
