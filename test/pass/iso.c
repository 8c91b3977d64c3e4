// AMBER_ATOMIC_ISO passes its isolation level (constant or not) to __amber_run.
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -O2 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
#include <amber.h>
void si(int *p) {
  AMBER_ATOMIC_ISO(AMBER_SI) { *p = 1; }
}
void lin(int *p) {
  AMBER_ATOMIC_ISO(AMBER_LIN) { *p = 1; }
}
void dyn(int *p, int level) {
  AMBER_ATOMIC_ISO(level) { *p = 1; }
}
// CHECK-LABEL: define dso_local void @si(
// CHECK: call i32 @__amber_run(ptr {{.*}}@si.amber_region.0.desc, ptr {{.*}}, i32 1)
// CHECK-LABEL: define dso_local void @lin(
// CHECK: call i32 @__amber_run(ptr {{.*}}@lin.amber_region.0.desc, ptr {{.*}}, i32 3)
// CHECK: define dso_local void @dyn(ptr noundef %{{.*}}, i32 noundef %[[L:[0-9a-z]+]])
// CHECK: call i32 @__amber_run(ptr {{.*}}@dyn.amber_region.0.desc, ptr {{.*}}, i32 %[[L]])
