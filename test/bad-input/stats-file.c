// AMBER_STATS_FILE naming a file that cannot be written stops the program
// with an error and a non-zero exit before its heap is created or touched
// (it used to print the error at exit, and exit 0).
// RUN: %amber_cc -O1 %s -o %t
// RUN: rm -rf %t.nodir && env AMBER_STATS_FILE=%t.nodir/stats.json not %run %t > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// RUN: test ! -e %t.heap
// A writable one gets the statistics at exit, as before.
// RUN: env AMBER_STATS_FILE=%t.json %run %t | FileCheck %s --check-prefix=OK
// RUN: grep -q update_commits %t.json
// CHECK: amber: error: cannot write AMBER_STATS_FILE={{.*}}nodir/stats.json: No such file or directory; check the directory exists and is writable, or unset AMBER_STATS_FILE
// CHECK-NOT: counter
// OK: counter 1
#include <amber.h>
#include <stdio.h>

int main(void) {
  long *counter = amber_root(sizeof *counter);
  AMBER_ATOMIC { ++*counter; }
  printf("counter %ld\n", *counter);
  return 0;
}
