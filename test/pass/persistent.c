// AMBER_PERSISTENT regions carry kind 2 in their descriptor; AMBER_ATOMIC 1.
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
#include <amber.h>
void p(int *x) {
  AMBER_PERSISTENT { *x = 1; }
}
void a(int *x) {
  AMBER_ATOMIC { *x = 1; }
}
// CHECK-DAG: @p.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 2, i32 0, i32 5,
// CHECK-DAG: @a.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0, i32 8,
