// A program's first open measures the boundary and stores it in the heap;
// `amber info` shows the record; stats report the clock; a bad
// AMBER_ORDO_BOUNDARY stops the program before the heap is touched.
// RUN: %amber_cc -O1 %s -o %t
// RUN: %run %t && %amber info %t.heap | FileCheck %s
// CHECK: ordo {{tsc|logical}} clock, boundary {{[0-9]+}} cycles measured on {{[0-9]+}} CPUs
// RUN: %amber info %t.heap --json | %python -c "import json,sys; o=json.load(sys.stdin)['ordo']; assert o['present'] and o['seq']==2, o; print('info ok')" | FileCheck %s --check-prefix=INFO
// INFO: info ok
// RUN: env AMBER_STATS_FILE=%t.stats %rerun %t && %python -c "import json,sys; s=json.load(open(sys.argv[1])); assert s['clock'] in ('tsc','logical') and 'ordo_boundary_cycles' in s; print('stats ok')" %t.stats | FileCheck %s --check-prefix=STATS
// STATS: stats ok
// RUN: env AMBER_STATS=1 AMBER_CLOCK=logical %rerun %t 2>&1 | FileCheck %s --check-prefix=LSTATS
// LSTATS: clock logical, ORDO boundary 0 cycles
// RUN: cp %t.heap %t.orig
// RUN: not env AMBER_ORDO_BOUNDARY=-5 %rerun %t 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: amber: error: AMBER_ORDO_BOUNDARY=-5 is not a positive number of cycles
// RUN: cmp %t.heap %t.orig
#include <amber.h>
int main(void) {
  long *r = amber_root(sizeof *r);
  AMBER_ATOMIC { *r += 1; }
  return 0;
}
