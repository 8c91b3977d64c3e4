// The same program at -O0 and -O2: regions are outlined (pipeline start) and
// instrumented (optimizer last) at both; -O1 and -O3 compile to objects.
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,O0
// RUN: %clang -O2 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s --check-prefixes=CHECK,O2
// RUN: %clang -O1 -I%amber_include -fpass-plugin=%amber_pass -c %s -o %t1.o
// RUN: %clang -O3 -I%amber_include -fpass-plugin=%amber_pass -c %s -o %t3.o
// RUN: %clang -O2 -g -I%amber_include -fpass-plugin=%amber_pass -c %s -o %t2.o
#include <amber.h>
struct acct { long balance; long ops; };
static long fee(long amount) { return amount / 100; }
long transfer(struct acct *from, struct acct *to, long amount) {
  long left = -1;
  AMBER_ATOMIC {
    if (from->balance >= amount) {
      from->balance -= amount + fee(amount);
      to->balance += amount;
      from->ops++;
      to->ops++;
    }
    left = from->balance;
  }
  return left;
}
// CHECK: @llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 101, ptr @amber.module_ctor, ptr null }]
// CHECK-LABEL: define dso_local i64 @transfer(
// CHECK: call i32 @__amber_run(ptr {{.*}}@transfer.amber_region.0.desc,
// CHECK-NOT: __amber_region_
// CHECK: ret i64
// CHECK-LABEL: define internal void @transfer.amber_region.0(
// CHECK: call i64 @__amber_load8(
// O0: call i64 @__amber_tx_fee(
// O2-NOT: @__amber_tx_fee(
// CHECK: call void @__amber_store8(
// CHECK: ret void
