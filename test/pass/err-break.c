// break out of a region is a compile error at the break.
// RUN: not %clang -O0 -g -I%amber_include -fpass-plugin=%amber_pass -c %s -o /dev/null 2>&1 | FileCheck %s
#include <amber.h>

void f(int *p, int c) {
  for (int i = 0; i < 10; i++) {
    AMBER_ATOMIC {
      if (c > i)
        break;
      *p = i;
    }
  }
}
// CHECK: err-break.c:[[@LINE-5]]:9: error: amber: break leaves an AMBER region without committing; use 'continue' to end the region early, or set a flag and test it after the region
// CHECK-NOT: error:
