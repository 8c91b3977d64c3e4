// A program built with amber-cc runs under valgrind: the runtime linked
// into it carries DWARF 4 debug info, which valgrind 3.19 reads (with
// clang-16's default DWARF 5 it gave up at start: "Possibly corrupted
// debuginfo file", runtime/CMakeLists.txt).  One run that never opens the
// heap, one that runs a region on it.
// REQUIRES: valgrind
// RUN: %amber_cc -O2 %s -o %t
// RUN: valgrind -q %t plain 2>&1 | FileCheck %s --check-prefix=PLAIN --implicit-check-not="can't recover"
// RUN: rm -f %t.heap
// RUN: env AMBER_HEAP=%t.heap valgrind -q %t region 2>&1 | FileCheck %s --check-prefix=REGION --implicit-check-not="can't recover"
// PLAIN: plain: 42
// REGION: region: 1
#include <amber.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "region")) {
    long *n = amber_root(sizeof *n);
    AMBER_ATOMIC { *n += 1; }
    printf("region: %ld\n", *n);
    return 0;
  }
  printf("plain: %d\n", 42);
  return 0;
}
