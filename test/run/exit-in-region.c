// exit() inside a region leaves the heap as a crash would: the region's
// partial effects are rolled back at the next open; earlier commits stay.
// RUN: %amber_cc -O1 %s -o %t
// RUN: %run %t 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t check | FileCheck %s --check-prefix=AFTER
// FIRST: amber: warning: exit inside an AMBER region
// AFTER: a=1 b=1
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct root { long a, b; };
int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  if (argc > 1 && !strcmp(argv[1], "check")) {
    printf("a=%ld b=%ld\n", r->a, r->b);
    return 0;
  }
  AMBER_ATOMIC { r->a = 1; r->b = 1; }
  AMBER_ATOMIC {
    r->a = 2;
    exit(0); /* an irrevocable call; the region never commits */
    r->b = 2;
  }
  return 0;
}
