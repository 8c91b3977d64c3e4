// Strict mode: a libc function libamber does not intercept (a64l)
// reading a persistent string faults, and the report names that function,
// its library, and the program's frame that called it with its source line
// (llvm-symbolizer on the -g build), then says what to do.  The backtrace's
// frames carry file:line too.  On both engines; a write by such a function
// (swab into the heap) says writes are never allowed.
// RUN: %amber_cc -g -O1 %s -o %t
// RUN: env AMBER_ENGINE=mvcc not %run %t read > %t.out 2>&1; FileCheck %s --check-prefixes=CHECK,READ < %t.out
// RUN: env AMBER_ENGINE=romulus not %run %t read > %t.out 2>&1; FileCheck %s --check-prefixes=CHECK,READ < %t.out
// RUN: not %rerun %t write > %t.out 2>&1; FileCheck %s --check-prefixes=WRITE < %t.out
// RUN: %amber check %t.heap
// CHECK: amber: error: persistent memory accessed outside the runtime: read of 0x{{[0-9a-f]+}} (heap {{.*}}.heap offset 0x{{[0-9a-f]+}})
// CHECK-NEXT: amber: note: the access was made by {{(__)?}}a64l() in the system library {{.*}}libc.so.6, called from main at {{.*}}strict_libc.c:[[#CALL:]]
// CHECK-NEXT: amber: note: libamber does not intercept {{(__)?}}a64l(): copy the data to a local buffer in a region, or call it from code compiled with amber-cc; docs/wrappers.md lists the functions that are covered
// READ-SAME: (AMBER_STRICT=0 lets such code read the heap
// CHECK-NEXT: amber: backtrace (innermost first):
// CHECK-NEXT: #0 0x{{[0-9a-f]+}} {{.*}}a64l{{.*}} ({{.*}}libc.so.6+0x{{[0-9a-f]+}})
// CHECK-NEXT: #1 0x{{[0-9a-f]+}} main+0x{{[0-9a-f]+}} ({{.*}}+0x{{[0-9a-f]+}}) at {{.*}}strict_libc.c:[[#CALL]]
// CHECK-NOT: compared
// WRITE-NOT: swapped
// WRITE: amber: error: persistent memory accessed outside the runtime: write of
// WRITE-NEXT: amber: note: the access was made by {{(__)?}}swab() in the system library {{.*}}libc.so.6, called from main at {{.*}}strict_libc.c:[[#WCALL:]]
// WRITE-NEXT: amber: note: libamber does not intercept {{(__)?}}swab(){{.*}}(writes by such code are never allowed
// WRITE: #1 0x{{[0-9a-f]+}} main+0x{{[0-9a-f]+}} ({{.*}}+0x{{[0-9a-f]+}}) at {{.*}}strict_libc.c:[[#WCALL]]
#define _GNU_SOURCE
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct root {
  char name[16];
};

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  AMBER_ATOMIC { strcpy(r->name, "file10"); }
  if (!strcmp(argv[1], "read")) {
    long c = a64l(r->name);
    printf("compared %ld\n", c);
  } else {
    char src[4] = "abcd";
    swab(src, r->name, 4);
    printf("swapped\n");
  }
  return 0;
}
