// A region that calls through a function pointer: the callee's persistent
// stores commit with the region.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdio.h>

struct root { long x, y; };
typedef void (*op_fn)(struct root *, long);

__attribute__((noinline)) void op_add(struct root *r, long v) { r->x += v; }
__attribute__((noinline)) void op_mul(struct root *r, long v) { r->y *= v; }

int main(int argc, char **argv) {
  op_fn ops[2] = {op_add, op_mul};
  volatile int pick = argc; /* keep the call indirect */
  struct root *r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    if (r->y == 0)
      r->y = 1;
    ops[pick - 1](r, 5);
    ops[pick](r, 3);
  }
  printf("x %ld y %ld\n", r->x, r->y);
  return 0;
}
// FIRST: x 5 y 3
// SECOND: x 10 y 9
