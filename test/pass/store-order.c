// Pass ABI 7: in a region, the program's plain stores call __amber_storeN
// (a relaxed store in ordinary memory: a mov, docs/pass.md), its atomic
// stores __amber_atomic_storeN with their C memory order (relaxed 0,
// release 3, seq_cst 5), and its volatile stores __amber_atomic_storeN
// seq_cst, so that a signal through ordinary memory keeps its order
// (runtime/base/shared.h).  Every case, with the types: store-order.ll.
// RUN: %clang -O1 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
#include <amber.h>
int data, flag, count;
volatile int vflag;
void f(int v) {
  AMBER_ATOMIC {
    data = v;
    __atomic_store_n(&flag, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&flag, 2, __ATOMIC_RELEASE);
    __atomic_store_n(&count, 3, __ATOMIC_RELAXED);
    vflag = 4;
  }
}
// CHECK-LABEL: define internal void @f.amber_region.0(
// CHECK: call void @__amber_store4(ptr @data, i32 %{{.*}})
// CHECK-NEXT: call void @__amber_atomic_store4(ptr @flag, i32 1, i32 5)
// CHECK-NEXT: call void @__amber_atomic_store4(ptr @flag, i32 2, i32 3)
// CHECK-NEXT: call void @__amber_atomic_store4(ptr @count, i32 3, i32 0)
// CHECK-NEXT: call void @__amber_atomic_store4(ptr @vflag, i32 4, i32 5)
// CHECK-NOT: store {{.*}}ptr @
// CHECK: ret void
