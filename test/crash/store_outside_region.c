// A persistent store outside any region is its own small transaction
// (DESIGN.md §3.4): once a later region has committed, a crash must not take
// the earlier store back.  The same holds for stores made by a function that
// a region reaches through a function pointer.  The crash is a SIGKILL inside
// a third region; recovery runs twice.
// RUN: %amber_cc -O2 %s -o %t
// RUN: not --crash %run %t direct
// RUN: %rerun %t show | FileCheck %s --check-prefix=DIRECT
// RUN: %rerun %t show | FileCheck %s --check-prefix=DIRECT
// RUN: not --crash %run %t indirect
// RUN: %rerun %t show | FileCheck %s --check-prefix=INDIRECT
// RUN: %rerun %t show | FileCheck %s --check-prefix=INDIRECT
#include <amber.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* x, y and z on different cache lines. */
struct root { long x; char pad1[120]; long y; char pad2[120]; long z; };

__attribute__((noinline)) void set_x(struct root *r) { r->x = 5; }
void (*volatile setter)(struct root *) = set_x;

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  if (argc > 1 && !strcmp(argv[1], "show")) {
    printf("x %ld y %ld z %ld\n", r->x, r->y, r->z);
    return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "indirect")) {
    AMBER_ATOMIC { setter(r); }          /* through a function pointer */
  } else {
    r->x = 5;                            /* outside any region */
  }
  AMBER_ATOMIC { r->y = 1; }             /* commits */
  AMBER_ATOMIC {
    r->z = 1;
    raise(SIGKILL);                      /* crash in the middle of a region */
  }
  return 0;
}
// DIRECT: x 5 y 1 z 0
// INDIRECT: x 5 y 1 z 0
