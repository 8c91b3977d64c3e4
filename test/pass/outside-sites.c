// Outside regions, built from C: a write's stray-store site is "file:line"
// with debug info and the function's name without; every access into one
// object shares one check (at -O2 a vectorised loop over an array argument
// is checked once); at -O0 the locals (allocas) are never checked.
// RUN: %clang -O2 -g -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -O2 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s --check-prefix=NODBG
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s --check-prefix=O0
void set(long *p, long v) {
  p[1] = v;
}
long sum(const int *a, int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}
// CHECK: @[[SITE:amber.site[.0-9]*]] = private unnamed_addr constant [{{[0-9]+}} x i8] c"{{.*}}outside-sites.c:9\00"
// CHECK-LABEL: define {{.*}}void @set(
// CHECK: call preserve_mostcc void @__amber_outside_store8(ptr {{.*}}, i64 {{.*}}, ptr @[[SITE]])
// CHECK-LABEL: define {{.*}}i64 @sum(
// CHECK: ptrtoint ptr %0 to i64
// CHECK-NOT: ptrtoint ptr
// CHECK: @__amber_outside_load
// CHECK-NOT: ptrtoint ptr
// CHECK: ret i64
// NODBG: @amber.site = private unnamed_addr constant [4 x i8] c"set\00"
// O0-LABEL: define {{.*}}void @set(
// O0: icmp ult
// O0: call preserve_mostcc void @__amber_outside_store8(
// O0: ret void
// One check, for a[i]: the locals (n, s, i, the copy of a) are not checked.
// O0-LABEL: define {{.*}}i64 @sum(
// O0: ptrtoint ptr
// O0-NOT: ptrtoint ptr
// O0: call preserve_mostcc <2 x i64> @__amber_outside_load4(
// O0-NOT: ptrtoint ptr
// O0: ret i64
