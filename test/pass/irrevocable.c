// Calls to code the pass cannot see (unknown externals, indirect calls) are
// preceded by __amber_irrevocable(), produce a remark, and set
// AMBER_DESC_IRREVOCABLE on every region that reaches them.
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -Rpass-analysis=amber -S -emit-llvm %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
#include <amber.h>
#include <stdio.h>
void log_it(int v) { printf("%d\n", v); }
void viaclone(int *p) {
  AMBER_ATOMIC { log_it(*p); }
}
void indirect(int *p, void (*fp)(int)) {
  AMBER_ATOMIC { fp(*p); }
}
void clean(int *p) {
  AMBER_ATOMIC { *p = 1; }
}
// CHECK-DAG: @viaclone.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 1, i16 1, i32 1,
// CHECK-DAG: @indirect.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 1, i16 1, i32 1,
// CHECK-DAG: @clean.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 1, i16 1, i32 0,
// CHECK-LABEL: define internal void @indirect.amber_region.0(
// CHECK: call void @__amber_irrevocable()
// CHECK-NEXT: call void %{{.*}}(i32
// CHECK-LABEL: define dso_local void @__amber_tx_log_it(
// CHECK: call void @__amber_irrevocable()
// CHECK-NEXT: call i32 (ptr, ...) @printf(
// REMARK-DAG: irrevocable.c:8:22: remark: call to printf cannot be instrumented; an AMBER region that reaches it becomes irrevocable [-Rpass-analysis=amber]
// REMARK-DAG: irrevocable.c:13:18: remark: indirect call cannot be instrumented; an AMBER region that reaches it becomes irrevocable [-Rpass-analysis=amber]
