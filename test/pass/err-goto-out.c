// goto out of a region is a compile error at the goto.
// RUN: not %clang -O0 -g -I%amber_include -fpass-plugin=%amber_pass -c %s -o /dev/null 2>&1 | FileCheck %s
#include <amber.h>

int f(int *p, int c) {
  AMBER_ATOMIC {
    if (c)
      goto fail;
    *p = 1;
  }
  return 0;
fail:
  *p = 3;
  return -1;
}
// CHECK: err-goto-out.c:[[@LINE-8]]:7: error: amber: goto leaves an AMBER region without committing; set a flag and test it after the region
// CHECK-NOT: error:
