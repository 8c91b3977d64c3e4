// A heap marked cleanly closed whose OLog still holds committed transactions
// is what the close before issue 17 part 1 left when other threads still
// committed: a clean open replays nothing, so those commits were silently
// missing and amber check said "consistent".  amber check now reports it.
// (The mark is forged here: the close no longer sets it over live records.)
// RUN: %amber_cc -O1 %s -o %t
// RUN: %run %t 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=DIRTY
// RUN: %python -c "import sys, struct; f=open(sys.argv[1],'r+b'); f.seek(4096); f.write(struct.pack('<Q', 0x434c45414e000001))" %t.heap
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=INFO
// RUN: not %amber check %t.heap 2>&1 | FileCheck %s
// FIRST: committed 3
// FIRST-NEXT: amber: warning: exit inside an AMBER region
// DIRTY: not closed cleanly
// DIRTY: consistent
// INFO: state        clean
// amber_root's transaction and the three increments:
// CHECK: amber: error: heap {{.*}} is marked cleanly closed, but OLog ring 0 still holds 4 committed transactions (commit ts
// CHECK: amber: error: heap {{.*}} is damaged: 1 problem
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  long *r = amber_root(sizeof *r);
  for (int i = 0; i < 3; i++)
    AMBER_ATOMIC { *r += 1; }
  printf("committed %ld\n", *r);
  fflush(stdout);
  AMBER_ATOMIC {
    *r = 100;
    exit(0); /* leaves the heap as a crash would: the three commits are in the OLog only */
  }
  return 0;
}
