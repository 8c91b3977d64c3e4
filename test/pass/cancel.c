// amber_cancel() and the outlining: __amber_run's result selects, for each
// local the region assigns, its value at the region's entry (cancelled) or
// the region's live-out (committed); a region that always cancels still
// continues after the region (no unreachable after __amber_run), and its
// region function keeps no trace of the edge that kept that code alive; an
// AMBER_ATOMIC_FN function that cancels returns 0 (a result in memory is
// zeroed there); a region that assigns no local gets no cancel path.
// RUN: %clang -O0 -fno-discard-value-names -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -O2 -fno-discard-value-names -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,O2
#include <amber.h>

int always(long *p) {
  int x = 1;
  AMBER_ATOMIC {
    *p = 2;
    x = 2;
    amber_cancel();
  }
  return x;
}
// CHECK-LABEL: define dso_local i32 @always(
// CHECK: call i32 @__amber_run(ptr {{.*}}@always.amber_region.0.desc
// CHECK-NOT: unreachable
// CHECK: ret i32 1

int sometimes(long *p, int k) {
  int x = k;
  AMBER_ATOMIC {
    x = (int)*p;
    if (x < 0) amber_cancel();
  }
  return x;
}
// CHECK-LABEL: define dso_local i32 @sometimes(
// CHECK: %[[V:.*]] = call i32 @__amber_run(ptr {{.*}}@sometimes.amber_region.0.desc
// O0: %[[C:.*]] = icmp ne i32 %[[V]], 0
// O0: br i1 %[[C]], label %amber.cancel.restore, label %amber.cancel.join
// O0: phi i32 [ %k, %amber.cancel.restore ], [ %{{.*}}, %amber.cancel.check ]
// O2: %[[C:.*]] = icmp eq i32 %[[V]], 0
// O2: select i1 %[[C]], i32 %{{.*}}, i32 %k
// CHECK: ret i32

AMBER_ATOMIC_FN long take(long *p) {
  *p -= 1;
  if (*p < 0) amber_cancel();
  return *p;
}
// CHECK-LABEL: define dso_local i64 @take(
// CHECK: %[[V:.*]] = call i32 @__amber_run(ptr {{.*}}@take.amber_region.fn.desc
// O0: %[[C:.*]] = icmp ne i32 %[[V]], 0
// O0: select i1 %[[C]], i64 0, i64 %
// O2: %[[C:.*]] = icmp eq i32 %[[V]], 0
// O2: select i1 %[[C]], i64 %{{.*}}, i64 0

struct big { long v[8]; };
AMBER_ATOMIC_FN struct big whole(long *p) {
  struct big b = {{*p}};
  if (*p < 0) amber_cancel();
  return b;
}
// CHECK-LABEL: define dso_local void @whole(ptr {{.*}}sret(%struct.big){{.*}} %agg.result,
// CHECK: %[[V:.*]] = call i32 @__amber_run(ptr {{.*}}@whole.amber_region.fn.desc
// CHECK: amber.cancelled.zero:
// CHECK: call void @llvm.memset.p0.i64(ptr {{.*}}%agg.result, i8 0, i64 64,

void nolocal(long *p) {
  AMBER_ATOMIC { *p = 1; }
}
// CHECK-LABEL: define dso_local void @nolocal(
// CHECK-NOT: amber.cancel
// CHECK: ret void

// CHECK-LABEL: define internal void @always.amber_region.0(
// CHECK-NOT: amber.region_never
// CHECK: call void @__amber_cancel()
// CHECK-NEXT: unreachable
// CHECK-NOT: amber.region_
