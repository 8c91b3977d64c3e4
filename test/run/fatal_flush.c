// An amber: error: exit keeps what the program printed before it (issue
// [2b/7] item 6): stdout redirected to a file is fully buffered, so before
// the fix the lines below were lost with the buffer when the runtime
// stopped the program with _exit(2).  The lines come first, then the error.
// RUN: %amber_cc -O1 %s -o %t
// RUN: not %run %t > %t.out 2>&1
// RUN: FileCheck %s < %t.out
// CHECK: run 1: before the error
// CHECK-NEXT: stderr line
// CHECK-NEXT: amber: error: amber_retry() called outside any region
#include <amber.h>
#include <stdio.h>

int main(void) {
  long *runs = amber_root(sizeof *runs);
  AMBER_ATOMIC { ++*runs; }
  printf("run %ld: before the error\n", *runs); /* buffered: stdout is a file */
  setvbuf(stderr, NULL, _IOFBF, 1024); /* a buffered stderr keeps its line too */
  fprintf(stderr, "stderr line\n");
  amber_retry();
  printf("not reached\n");
  return 0;
}
