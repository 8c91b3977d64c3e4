// libc calls inside regions (and clones) go to the runtime's wrappers with
// the same signature; outside regions they stay.
// RUN: %clang -O0 -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -O2 -fno-builtin -I%amber_include -fpass-plugin=%amber_pass -S -emit-llvm %s -o - | FileCheck %s
#include <amber.h>
#include <stdlib.h>
#include <string.h>
struct rec { char name[32]; char *copy; size_t len; };
void set(struct rec **slot, const char *s) {
  AMBER_ATOMIC {
    struct rec *r = malloc(sizeof *r);
    strcpy(r->name, s);
    r->len = strlen(r->name);
    r->copy = strdup(s);
    free(*slot);
    *slot = r;
  }
  free(malloc(1));
}
// CHECK-LABEL: define dso_local void @set(
// CHECK: call i32 @__amber_run(
// CHECK: call {{.*}}ptr @malloc(
// CHECK: call void @free(
// CHECK-LABEL: define internal void @set.amber_region.0(
// CHECK: call {{.*}}ptr @__amber_malloc(i64 noundef 48)
// CHECK: call ptr @__amber_strcpy(
// CHECK: call i64 @__amber_strlen(
// CHECK: call {{.*}}ptr @__amber_strdup(
// CHECK: call void @__amber_free(
// CHECK-NOT: call void @__amber_irrevocable
// CHECK: ret void
// CHECK-DAG: declare extern_weak ptr @__amber_malloc(i64)
// CHECK-DAG: declare extern_weak ptr @__amber_strcpy(ptr, ptr)
