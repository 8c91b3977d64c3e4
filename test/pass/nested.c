// Nested regions: the inner one is outlined first; the outer region function
// calls __amber_run for it (nesting is flat at run time).
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
#include <amber.h>
int g;
void f(int *p) {
  AMBER_ATOMIC {
    *p = 1;
    AMBER_ATOMIC {
      g = *p;
    }
    *p = 2;
  }
}
// CHECK-DAG: @f.amber_region.1.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0, i32 9,
// CHECK-DAG: @f.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0, i32 7,
// CHECK-LABEL: define dso_local void @f(
// CHECK: call i32 @__amber_run(ptr @f.amber_region.0.desc,
// CHECK-NOT: @f.amber_region.1.desc
// CHECK: ret void
// CHECK-LABEL: define internal void @f.amber_region.1(
// CHECK: call i32 @__amber_load4(
// CHECK: call void @__amber_store4(ptr @g,
// CHECK-LABEL: define internal void @f.amber_region.0(
// CHECK: call void @__amber_store4(ptr %{{.*}}, i32 1)
// CHECK: call i32 @__amber_run(ptr @f.amber_region.1.desc,
// CHECK: call void @__amber_store4(ptr %{{.*}}, i32 2)
// CHECK-NOT: __amber_region_
