// An instrumented program started without the runtime stops with a clear
// message instead of crashing.
// RUN: %clang -O1 -I%amber_include -fpass-plugin=%amber_pass %s -o %t
// RUN: not %t 2>&1 | FileCheck %s
// CHECK: amber: error: this program was built with the amber pass but the amber runtime is not loaded
#include <amber.h>
#include <stdlib.h>
static long total;
int main(void) {
  AMBER_ATOMIC {
    long *p = malloc(sizeof *p);
    *p = 1;
    total += *p;
  }
  return 0;
}
