// Regions nested in regions, directly and through calls, join the outermost
// transaction (flat nesting).
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdio.h>

struct root { long a, b, c, d; };

__attribute__((noinline)) static void inner(struct root *r) {
  AMBER_ATOMIC { r->c += 100; }
}

int main(void) {
  struct root *r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    r->a += 1;
    AMBER_ATOMIC {
      r->b += 10;
      AMBER_ATOMIC { r->d += 1000; }
    }
    inner(r);
  }
  inner(r); /* the same function, called outside a region */
  printf("a %ld b %ld c %ld d %ld\n", r->a, r->b, r->c, r->d);
  return 0;
}
// FIRST: a 1 b 10 c 200 d 1000
// SECOND: a 2 b 20 c 400 d 2000
