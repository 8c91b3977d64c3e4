// AMBER_ATOMIC_FN: the body becomes the region function; the function packs
// its arguments and return slot into a closure and calls __amber_run.
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -O2 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
#include <amber.h>
AMBER_ATOMIC_FN long add(long *a, int i, long v) {
  a[i] += v;
  return a[i];
}
// CHECK: @add.amber_region.fn.fields = private constant [4 x %struct.__amber_field] [%struct.__amber_field { i32 0, i32 8, i32 1, i32 0 }, %struct.__amber_field { i32 8, i32 4, i32 0, i32 0 }, %struct.__amber_field { i32 16, i32 8, i32 0, i32 0 }, %struct.__amber_field { i32 24, i32 8, i32 2, i32 0 }]
// CHECK: @add.amber_region.fn.name = private unnamed_addr constant [7 x i8] c"add#fn\00"
// CHECK: @add.amber_region.fn.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 2, i32 6, i64 {{-?[0-9]+}}, ptr @add.amber_region.fn, {{.*}}, i32 32, i32 4, {{.*}} section "amber_regions", align 8
// CHECK-LABEL: define dso_local i64 @add(
// CHECK: alloca { ptr, i32, i64, i64 }
// CHECK: call i32 @__amber_run(ptr {{.*}}@add.amber_region.fn.desc, ptr {{.*}}, i32 0)
// CHECK: ret i64
// CHECK-LABEL: define internal void @add.amber_region.fn(ptr
// CHECK: call i64 @__amber_load8(
// CHECK: call void @__amber_store8(
// CHECK: ret void
