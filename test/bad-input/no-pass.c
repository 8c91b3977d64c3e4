// A region compiled without the amber pass stops at run time and says how
// to compile it.
// RUN: %clang -O1 -I%amber_include %s -o %t -L%amber_libdir -Wl,-rpath,%amber_libdir -lamber
// RUN: not %run %t 2>&1 | FileCheck %s
// CHECK: amber: error: the AMBER region at {{.*}}no-pass.c:10 was compiled without the amber pass{{.*}}compile {{.*}} with amber-cc
#include <amber.h>
#include <stdio.h>
int main(void) {
  long *r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    *r += 1;
  }
  printf("%ld\n", *r);
  return 0;
}
