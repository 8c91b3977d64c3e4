// mvcc engine gating: it is not crash-consistent yet (issue [6/7]), so
// creating or opening an mvcc heap is refused without AMBER_MVCC_UNSAFE=1,
// acknowledged use prints a one-line warning, a heap that was not closed
// cleanly is refused at the next open (its data may be torn), and a bad
// AMBER_BLOCK is refused at creation.
// RUN: %amber_cc -O2 %s -o %t
// RUN: rm -f %t.heap
// RUN: not env AMBER_ENGINE=mvcc %run %t 2>&1 | FileCheck %s --check-prefix=REFUSE
// RUN: test ! -e %t.heap
// RUN: not env AMBER_ENGINE=mvcc AMBER_MVCC_UNSAFE=1 AMBER_BLOCK=100 %run %t 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: env AMBER_ENGINE=mvcc AMBER_MVCC_UNSAFE=1 AMBER_BLOCK=32 %run %t 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=INFO
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CLEAN
// RUN: not %rerun %t 2>&1 | FileCheck %s --check-prefix=REOPEN
// RUN: env AMBER_MVCC_UNSAFE=1 %rerun %t 2>&1 | FileCheck %s --check-prefix=SECOND
// RUN: not env AMBER_MVCC_UNSAFE=1 %rerun %t crash 2>&1 | FileCheck %s --check-prefix=CRASH
// RUN: not env AMBER_MVCC_UNSAFE=1 %rerun %t 2>&1 | FileCheck %s --check-prefix=DIRTY
// RUN: not %amber check %t.heap 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: %run %t 2>&1 | FileCheck %s --check-prefix=ROMULUS
#include <amber.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct root { long runs; };

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  AMBER_ATOMIC { r->runs++; }
  printf("runs %ld\n", r->runs);
  fflush(stdout);
  if (argc > 1 && !strcmp(argv[1], "crash")) kill(getpid(), SIGKILL);
  return 0;
}
// REFUSE: amber: error: refusing to create heap {{.*}} with engine mvcc: the mvcc engine is not crash-consistent yet {{.*}}issue [6/7]{{.*}}AMBER_MVCC_UNSAFE=1
// BLOCK: amber: error: AMBER_BLOCK=100 for new heap {{.*}}: the mvcc block size must be a power of two between 16 and 4096 bytes
// WARN: amber: warning: heap {{.*}} uses engine mvcc, which is not crash-consistent yet (issue [6/7])
// WARN-NEXT: runs 1
// INFO: mvcc
// CLEAN: consistent (mvcc engine
// REOPEN: amber: error: refusing to open heap {{.*}} with engine mvcc
// SECOND: runs 2
// CRASH: runs 3
// DIRTY: amber: error: heap {{.*}} (engine mvcc) was not closed cleanly{{.*}}no crash recovery yet (issue [6/7]){{.*}}refuses the heap
// CHECK: amber: error: heap {{.*}} (engine mvcc) was not closed cleanly
// ROMULUS: runs 1
