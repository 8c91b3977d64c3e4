// Asking for a root of another size than the heap recorded is an error that
// names the problem, and leaves the heap usable.  When the run persisted
// nothing before the refusal, the heap file is byte-for-byte as it was (the
// open's own writes, status words and ORDO record, are put back); when it
// committed something first, that is kept and the heap is closed cleanly.
// Both engines.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t 64 | FileCheck %s --check-prefix=FIRST
// RUN: cp %t.heap %t.before
// RUN: not %rerun %t 128 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: cmp %t.heap %t.before
// RUN: %rerun %t 64 | FileCheck %s --check-prefix=AGAIN
// RUN: not %rerun %t 128 commit-first 2>&1 | FileCheck %s --check-prefix=KEPT
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=CLEAN
// RUN: %rerun %t 64 | FileCheck %s --check-prefix=THIRD
// RUN: env AMBER_ENGINE=romulus %run %t 64 | FileCheck %s --check-prefix=FIRST
// RUN: cp %t.heap %t.before
// RUN: not %rerun %t 128 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: cmp %t.heap %t.before
// RUN: %rerun %t 64 | FileCheck %s --check-prefix=AGAIN
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long counter; /* a volatile global: a region that commits */

int main(int argc, char **argv) {
  size_t size = argc > 1 ? strtoul(argv[1], 0, 10) : 64;
  if (argc > 2 && !strcmp(argv[2], "commit-first")) {
    long *r = amber_root(64);
    AMBER_ATOMIC { r[0] += 100; counter++; }
  }
  long *r = amber_root(size);
  printf("root value %ld\n", r[0]);
  AMBER_ATOMIC { r[0] += 5; }
  return 0;
}
// FIRST: root value 0
// ERR: amber: error: amber_root(128): heap {{.*}} holds a root of 64 bytes; {{.*}} (the heap is unchanged)
// ERR-NOT: root value
// AGAIN: root value 5
// KEPT: amber: error: amber_root(128): {{.*}} (the heap was closed cleanly, keeping what the open recovered and this run committed)
// CLEAN: clean
// THIRD: root value 110
