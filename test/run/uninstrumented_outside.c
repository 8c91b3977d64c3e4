// Code amber never instrumented that writes the heap outside regions is
// reported at exit (those writes were not crash-safe), and kept on a clean
// exit rather than silently dropped.
// RUN: %clang -O1 -c %S/Inputs/poke.c -o %t.poke.o
// RUN: %amber_cc -O1 %s %t.poke.o -o %t
// RUN: %run %t write 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %rerun %t show 2>&1 | FileCheck %s --check-prefix=SHOW
// RUN: %amber check %t.heap
// WARN: amber: warning: 1 pages of heap {{.*}} were written outside AMBER regions by code amber did not instrument
// SHOW-NOT: warning
// SHOW: x=7
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
  poke(x, 7);
  return 0;
}
