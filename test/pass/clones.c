// Every defined function gets a transactional clone __amber_tx_<name> with
// the same linkage class; calls from regions and clones go to the clones.
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
#include <amber.h>
static int twice(int *p) { return *p * 2; }
int bump(int *p) { *p = twice(p) + 1; return *p; }
int rec(int n) { return n ? rec(n - 1) : 0; }
void use(int *p) {
  AMBER_ATOMIC { bump(p); }
  bump(p); /* outside the region: the original */
}
// CHECK-LABEL: define dso_local i32 @bump(
// CHECK: call i32 @twice(
// CHECK-LABEL: define internal i32 @twice(
// CHECK-NOT: __amber_load
// CHECK: ret i32
// CHECK-LABEL: define dso_local void @use(
// CHECK: call i32 @__amber_run(
// CHECK: call i32 @bump(
// CHECK-LABEL: define internal void @use.amber_region.0(
// CHECK: call i32 @__amber_tx_bump(
// CHECK-LABEL: define dso_local i32 @__amber_tx_bump(
// CHECK: call i32 @__amber_tx_twice(
// CHECK: call void @__amber_store4(
// CHECK-LABEL: define internal i32 @__amber_tx_twice(
// CHECK: call i32 @__amber_load4(
// CHECK-LABEL: define dso_local i32 @__amber_tx_rec(
// CHECK: call i32 @__amber_tx_rec(
// CHECK-LABEL: define dso_local void @__amber_tx_use(
// CHECK: call i32 @__amber_run(
// CHECK: call i32 @__amber_tx_bump(
// CHECK-NOT: define {{.*}}@__amber_tx_use.amber_region
// CHECK-NOT: define {{.*}}@__amber_tx___amber
