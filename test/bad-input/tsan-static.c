// A program with ThreadSanitizer linked into it (plain -fsanitize=thread:
// TSan's interceptors ahead of libamber's) is refused at load with what to
// do, before the heap is touched: the runtime's locks and threads would
// bypass TSan (it stopped with "CHECK failed" in pthread_join, or in mmap at
// the default base).  With TSan's shared runtime behind libamber it runs
// (test/tsan, DEVELOPERS.md "ThreadSanitizer").
// REQUIRES: tsan
// RUN: %amber_cc -O1 -fsanitize=thread %s -o %t -pthread
// RUN: rm -f %t.heap
// RUN: not %run %t 2>&1 | FileCheck %s
// RUN: test ! -e %t.heap
// CHECK: amber: error: this program has ThreadSanitizer linked into it (-fsanitize=thread) ahead of libamber{{.*}}-shared-libsan
#include <amber.h>
#include <stdio.h>

int main(void) {
  long *r = amber_root(sizeof *r);
  AMBER_ATOMIC { *r += 1; }
  printf("%ld\n", *r);
  return 0;
}
