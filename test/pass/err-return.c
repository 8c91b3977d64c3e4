// return inside a region is a compile error at the return statement (with
// -g) or at the region's line (without debug info).
// RUN: not %clang -O0 -g -I%amber_include -fpass-plugin=%amber_pass -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: not %clang -O2 -I%amber_include -fpass-plugin=%amber_pass -c %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODBG
#include <amber.h>

int f(int *p, int c) {
  AMBER_ATOMIC {
    if (c)
      return 1;
    *p = 2;
  }
  return 0;
}
// CHECK: err-return.c:[[@LINE-5]]:7: error: amber: return inside an AMBER region leaves it without committing; store the result in a variable and return after the region
// NODBG: err-return.c:[[@LINE-8]]:{{[0-9]+}}: error: amber: return inside an AMBER region
// CHECK-NOT: error:
