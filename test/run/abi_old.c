// A program (or a module of it) built for another pass ABI stops at start
// with an error that says to rebuild it (here ABI 5, before clones were
// called across modules by name: issue 19).
// RUN: %amber_cc -O1 %s -o %t
// RUN: not %run %t 2>&1 | FileCheck %s
// CHECK: amber: error: this program was compiled for amber ABI 5 but the loaded runtime implements ABI {{[6-9]|[1-9][0-9]}}; rebuild it with this amber's amber-cc
#include <stdio.h>
void __amber_module_init(unsigned abi_version);
/* What an older pass's module constructor called. */
__attribute__((constructor)) static void old_module(void) { __amber_module_init(5); }
int main(void) {
  puts("started");
  return 0;
}
