// A region calls through a function pointer (and through a pointer to a
// function of the same module reached only at run time): the callee's
// transactional clone runs, found through the module's clone registry, so
// its persistent stores are part of the region and survive a crash in a
// later region.
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

struct root { long x; char pad1[120]; long y; char pad2[120]; long z; char pad3[120]; long w; };

__attribute__((noinline)) void set_x(struct root *r, long v) { r->x = v; }
__attribute__((noinline)) static void set_w(struct root *r, long v) {
  r->w = v * 2;
}
void (*volatile setters[2])(struct root *, long) = {set_x, set_w};

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  if (argc > 1 && !strcmp(argv[1], "show")) {
    printf("x %ld w %ld y %ld z %ld\n", r->x, r->w, r->y, r->z);
    return 0;
  }
  AMBER_ATOMIC {
    setters[0](r, 5);                 /* through a function pointer */
    setters[argc - 1](r, 21);         /* a static function, by pointer */
  }
  AMBER_ATOMIC { r->y = 1; }          /* commits */
  AMBER_ATOMIC {
    r->z = 1;
    raise(SIGKILL);                   /* crash inside a region */
  }
  return 0;
}
// CHECK: x 5 w 42 y 1 z 0
