// Calls inside regions (and clones) to code the pass cannot instrument:
//  - output the runtime holds until the commit (printf, ...): a plain call;
//  - other known I/O (fsync, ...): __amber_irrevocable_io() before the call;
//  - qsort, qsort_r, bsearch: a plain call (libamber's interceptor runs them
//    in the region's transaction, wrappers/sort.c; no flag, no remark);
//  - C99 math functions whose only side effect is the thread's errno (log,
//    sqrtf, powl, ...): a plain call; frexp (writes through its pointer)
//    stays irrevocable;
//  - other known library functions (snprintf, ...): __amber_irrevocable();
//  - indirect calls: __amber_clone_of() (the registered clone, or irrevocable);
//    functions declared but not defined here: __amber_tx_<name> (extern_weak,
//    their module's clone), or __amber_clone_of() when that is null (ABI 6);
//  - inline assembly: __amber_irrevocable().
// Each but the last two kinds resolved at run time sets
// AMBER_DESC_IRREVOCABLE (1) on every region that reaches it; the two
// certainly uninstrumented kinds (library functions, inline assembly) also
// set AMBER_DESC_UNSEEN (8).  Indirect and cross-module calls do not flag
// the region (issue 19): they call a clone when there is one, and
// __amber_clone_of makes the transaction irrevocable at run time when there
// is none ("external", "indirect", "via_local": flags 0; "mixed", which also
// calls snprintf: 9; with -amber-direct-clones=false likewise).  All but
// indirect calls produce a remark.
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -fplugin=%amber_pass -mllvm -amber-direct-clones=false -S -emit-llvm %s -o - | FileCheck %s --check-prefix=LOOKUP
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -Rpass-analysis=amber -S -emit-llvm %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
#include <amber.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
void log_it(int v) { printf("%d\n", v); fsync(1); }
void viaclone(int *p) {
  AMBER_ATOMIC { log_it(*p); }
}
void indirect(int *p, void (*fp)(int)) {
  AMBER_ATOMIC { fp(*p); }
}
void clean(int *p) {
  AMBER_ATOMIC { *p = 1; }
}
void other_module(int *p);
void external(int *p) {
  AMBER_ATOMIC { other_module(p); }
}
static void via(int *p) { other_module(p); }
void via_local(int *p) {
  AMBER_ATOMIC { via(p); }
}
void mixed(char *s, int *p) {
  AMBER_ATOMIC { other_module(p); snprintf(s, 8, "%d", *p); }
}
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
void sorted(int *p) {
  AMBER_ATOMIC { qsort(p, 4, sizeof *p, cmp); }
}
void assembly(int *p) {
  AMBER_ATOMIC { __asm__ volatile("" ::: "memory"); *p = 2; }
}
void formatted(char *s, int v) {
  AMBER_ATOMIC { snprintf(s, 8, "%d", v); }
}
void mathematics(double *p, float *f) {
  AMBER_ATOMIC { *p = log(*p) + pow(*p, 2.5) + sqrt(*p); *f = expf(*f); }
}
void split(double *p, int *e) {
  AMBER_ATOMIC { *p = frexp(*p, e); }
}
static int key_cmp(const void *k, const void *e) { return *(const int *)k - *(const int *)e; }
void searched(int *p, int *q, int k) {
  AMBER_ATOMIC { *q = bsearch(&k, p, 4, sizeof *p, key_cmp) != NULL; }
}
// CHECK-DAG: @viaclone.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 1,
// CHECK-DAG: @indirect.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0,
// CHECK-DAG: @clean.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0,
// CHECK-DAG: @external.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0,
// CHECK-DAG: @via_local.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0,
// CHECK-DAG: @mixed.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 9,
// LOOKUP-DAG: @external.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0,
// LOOKUP-DAG: @via_local.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0,
// LOOKUP-DAG: @mixed.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 9,
// LOOKUP-DAG: @viaclone.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 1,
// LOOKUP-LABEL: define internal void @external.amber_region.0(
// LOOKUP: call ptr @__amber_clone_of(ptr @other_module)
// CHECK-DAG: @sorted.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0,
// CHECK-DAG: @searched.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0,
// CHECK-DAG: @mathematics.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 0,
// CHECK-DAG: @split.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 9,
// CHECK-DAG: @formatted.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 9,
// CHECK-DAG: @assembly.amber_region.0.desc = private global %struct.__amber_region_desc { i32 1095582290, i16 8, i16 1, i32 9,
// CHECK-LABEL: define internal void @indirect.amber_region.0(
// CHECK: %[[C:[0-9]+]] = call ptr @__amber_clone_of(ptr %{{[0-9]+}})
// CHECK-NEXT: call void %[[C]](i32
// CHECK-NOT: __amber_irrevocable
// CHECK-LABEL: define internal void @external.amber_region.0(
// CHECK: br i1 icmp eq (ptr @__amber_tx_other_module, ptr null), label %[[L:[0-9]+]], label %[[K:[0-9]+]]
// CHECK: [[L]]:
// CHECK-NEXT: %[[E:[0-9]+]] = call ptr @__amber_clone_of(ptr @other_module)
// CHECK: [[K]]:
// CHECK-NEXT: %[[T:[0-9]+]] = phi ptr [ @__amber_tx_other_module, %{{[0-9]+}} ], [ %[[E]], %[[L]] ]
// CHECK-NEXT: call void %[[T]](ptr
// CHECK-LABEL: define internal void @sorted.amber_region.0(
// CHECK-NOT: __amber_irrevocable
// CHECK: call void @qsort(
// CHECK-NOT: __amber_irrevocable
// CHECK-LABEL: define internal void @assembly.amber_region.0(
// CHECK: call void @__amber_irrevocable()
// CHECK-NEXT: call void asm sideeffect
// CHECK-LABEL: define internal void @formatted.amber_region.0(
// CHECK: call void @__amber_irrevocable()
// CHECK-NEXT: call i32 (ptr, i64, ptr, ...) @snprintf(
// CHECK-LABEL: define internal void @searched.amber_region.0(
// CHECK-NOT: __amber_irrevocable
// CHECK: call ptr @bsearch(
// CHECK-NOT: __amber_irrevocable
// CHECK-LABEL: define dso_local void @__amber_tx_log_it(
// CHECK-NOT: __amber_irrevocable
// CHECK: call i32 (ptr, ...) @printf(
// CHECK-NEXT: call void @__amber_irrevocable_io()
// CHECK-NEXT: call i32 @fsync(
// REMARK-NOT: call to printf
// REMARK-DAG: irrevocable.c:31:41: remark: call to fsync does I/O; an AMBER region that reaches it becomes irrevocable [-Rpass-analysis=amber]
// REMARK-DAG: irrevocable.c:43:18: remark: call to other_module is resolved by the linker: its transactional clone __amber_tx_other_module is called when the module defining it was built with amber, otherwise an AMBER region that reaches it becomes irrevocable [-Rpass-analysis=amber]
// REMARK-DAG: irrevocable.c:57:18: remark: inline assembly cannot be instrumented; an AMBER region that reaches it becomes irrevocable [-Rpass-analysis=amber]
// REMARK-DAG: irrevocable.c:60:18: remark: call to snprintf cannot be instrumented; an AMBER region that reaches it becomes irrevocable [-Rpass-analysis=amber]
// REMARK-DAG: irrevocable.c:66:23: remark: call to frexp cannot be instrumented; an AMBER region that reaches it becomes irrevocable [-Rpass-analysis=amber]
// REMARK-NOT: indirect call
// REMARK-NOT: call to qsort
// REMARK-NOT: call to bsearch
// REMARK-NOT: call to log
// REMARK-NOT: call to pow
// REMARK-NOT: call to expf
