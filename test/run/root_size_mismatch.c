// Asking for a root of another size than the heap recorded is an error that
// names the problem, and leaves the heap usable.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t 64 | FileCheck %s --check-prefix=FIRST
// RUN: not %rerun %t 128 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: %rerun %t 64 | FileCheck %s --check-prefix=AGAIN
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  size_t size = argc > 1 ? strtoul(argv[1], 0, 10) : 64;
  long *r = amber_root(size);
  printf("root value %ld\n", r[0]);
  AMBER_ATOMIC { r[0] += 5; }
  return 0;
}
// FIRST: root value 0
// ERR: amber: error:
// ERR-NOT: root value
// AGAIN: root value 5
