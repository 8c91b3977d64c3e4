// A region compiled without the amber pass stops the program at run time with
// a message that says how to compile it (and does not run the body).
// RUN: %clang -O2 -I%amber_include %s -o %t %libamber
// RUN: not %run %t 2>&1 | FileCheck %s
#include <amber.h>
#include <stdio.h>

int main(void) {
  long *r = amber_root(sizeof(long));
  printf("before region\n");
  fflush(stdout);
  AMBER_ATOMIC { *r += 1; printf("body ran\n"); }
  printf("after region\n");
  return 0;
}
// CHECK: before region
// CHECK: amber: error:
// CHECK-SAME: {{amber-cc|pass-plugin|AmberPass}}
// CHECK-NOT: body ran
// CHECK-NOT: after region
