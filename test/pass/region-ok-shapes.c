// Legal control flow inside a region (loops with break/continue, switch,
// continue ending the region, noreturn calls) is accepted at every level.
// RUN: %clang -O0 -g -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -O2 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
#include <amber.h>
#include <stdlib.h>
int g;
int f(int *p, int n) {
  int s = 0;
  AMBER_ATOMIC {
    for (int i = 0; i < n; i++) {
      if (p[i] < 0)
        break;
      if (p[i] == 0)
        continue;
      s += p[i];
    }
    switch (n) {
    case 1: s++; break;
    default: s--;
    }
    if (n < 0)
      abort();
    if (n > 100)
      continue;
    p[0] = s;
  }
  return s;
}
// CHECK-LABEL: define {{.*}}i32 @f(
// CHECK: call i32 @__amber_run(ptr {{.*}}@f.amber_region.0.desc
// CHECK-LABEL: define internal void @f.amber_region.0(
// CHECK-NOT: __amber_region_
