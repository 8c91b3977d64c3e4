// goto into a region is a compile error at the goto.
// RUN: not %clang -O0 -g -I%amber_include -fpass-plugin=%amber_pass -c %s -o /dev/null 2>&1 | FileCheck %s
#include <amber.h>

void f(int *p, int c) {
  if (c)
    goto in;
  AMBER_ATOMIC {
    *p = 1;
  in:
    *p = 2;
  }
}
// CHECK: err-goto-into.c:[[@LINE-7]]:5: error: amber: goto into an AMBER region skips its beginning; move the label out of the region or the goto into it
// CHECK-NOT: error:
