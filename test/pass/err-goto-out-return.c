// A goto to a label that returns (single-return function) is reported as a
// goto, at the goto, with line tables only (what amber-cc adds).
// RUN: not %clang -O2 -gline-tables-only -I%amber_include -fpass-plugin=%amber_pass -c %s -o /dev/null 2>&1 | FileCheck %s
#include <amber.h>

long g(long *p) {
  for (;;) {
    AMBER_ATOMIC {
      if (*p)
        goto out;
      *p = 1;
    }
  }
out:
  return 0;
}
// CHECK: err-goto-out-return.c:[[@LINE-7]]:9: error: amber: goto leaves an AMBER region without committing
// CHECK-NOT: error:
