// Calibration under an artificial CPU hog (issue [1/7] part 3): busy
// processes pinned to every CPU, on a seeded schedule, compete with the
// measuring threads while 6 heaps are created.  Every stored boundary must
// be confirmed and within the documented bound of a quiet measurement (its
// boundary plus the clean round-trip limit); before the fix 3 of 20 heaps
// stored 2x10^7 cycles and more, and one stored 1.  No assertion on speed:
// the hogs stop when the heaps are made, or after 120 s.
// RUN: %amber_cc -O1 %s -o %t
// RUN: %clang -O1 %S/Inputs/hog.c -o %t.hog
// RUN: %amber ordo --json > %t.quiet
// RUN: %t.hog 17 3 120 sh %S/Inputs/heaps.sh %tools/amber-run %amber %t 6 %t.h
// RUN: %python %S/Inputs/within.py %t.quiet %t.h 6 | FileCheck %s
// CHECK: quiet {{[0-9]+}} cycles, bound {{[0-9]+}}, stored [{{[0-9, ]+}}]
#include <amber.h>
int main(void) {
  long *r = amber_root(sizeof *r);
  AMBER_ATOMIC { *r += 1; }
  return 0;
}
