// AMBER_UNISOLATED variables: the module constructor registers each one
// defined here (address and size) with __amber_register_unisolated; accesses
// to them in regions still go to the runtime (it skips isolation and undo
// but records them for recovery's re-execution).  A module that defines
// only such a variable still gets the constructor (an unused static one is
// gone before the pass runs).
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -O2 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -O2 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm -DONLY_DATA %s -o - | FileCheck %s --check-prefix=DATA
#include <amber.h>
AMBER_UNISOLATED int flags[4];
AMBER_UNISOLATED static long progress;
#ifndef ONLY_DATA
long plain;
long *keep(void) { return &progress; }
void step(int i) {
  AMBER_ATOMIC {
    flags[i] = 1;
    plain += progress;
  }
}
#endif
// CHECK: %struct.__amber_range = type { ptr, i64 }
// CHECK: @amber.unisolated = private constant [2 x %struct.__amber_range] [%struct.__amber_range { ptr @flags, i64 16 }, %struct.__amber_range { ptr @progress, i64 8 }], align 8
// CHECK-LABEL: define internal void @step.amber_region.0(
// CHECK: call void @__amber_store4(ptr
// CHECK-LABEL: define internal void @amber.module_ctor()
// CHECK: call void @__amber_register_unisolated(ptr @amber.unisolated, i64 2)
// DATA: @amber.unisolated = private constant [1 x %struct.__amber_range] [%struct.__amber_range { ptr @flags, i64 16 }]
// DATA: call void @__amber_register_unisolated(ptr @amber.unisolated, i64 1)
