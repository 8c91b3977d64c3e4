// Slow-PM emulation: AMBER_PM_WRITE_NS per line flushed and AMBER_PM_FENCE_NS
// per fence.  The stats report the delay exactly as counts x settings (never a
// timing); unset it is 0, and none / sim ignore it.  Bad values are errors.
// RUN: %amber_cc -O2 %s -o %t
// RUN: env AMBER_PM=pmem AMBER_PM_WRITE_NS=140 AMBER_PM_FENCE_NS=200 AMBER_STATS_FILE=%t.stt.json %run %t | FileCheck %s
// RUN: %python %S/Inputs/pm_latency_check.py %t.stt.json 140 200
// RUN: env AMBER_PM=msync AMBER_PM_WRITE_NS=340 AMBER_PM_FENCE_NS=500 AMBER_STATS_FILE=%t.pcm.json %run %t | FileCheck %s
// RUN: %python %S/Inputs/pm_latency_check.py %t.pcm.json 340 500
// RUN: env AMBER_PM=pmem AMBER_PM_WRITE_NS=0x10 AMBER_STATS_FILE=%t.hex.json %run %t | FileCheck %s
// RUN: %python %S/Inputs/pm_latency_check.py %t.hex.json 16 0
// RUN: env AMBER_PM=pmem AMBER_STATS_FILE=%t.off.json %run %t | FileCheck %s
// RUN: %python %S/Inputs/pm_latency_check.py %t.off.json 0 0
// RUN: env AMBER_PM=none AMBER_PM_WRITE_NS=140 AMBER_PM_FENCE_NS=200 AMBER_STATS_FILE=%t.none.json %run %t | FileCheck %s
// RUN: %python %S/Inputs/pm_latency_check.py %t.none.json 140 200 --not-applied
// Text stats name the delay too.
// RUN: env AMBER_PM=pmem AMBER_PM_WRITE_NS=140 AMBER_PM_FENCE_NS=200 AMBER_STATS=1 %run %t 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: env AMBER_PM=none AMBER_PM_WRITE_NS=140 AMBER_STATS=1 %run %t 2>&1 | FileCheck %s --check-prefix=TEXT-NONE
// Malformed or out-of-range values: an error naming the variable, exit 2.
// RUN: env AMBER_PM_WRITE_NS=abc not %run %t 2>&1 | FileCheck %s --check-prefix=BAD-WRITE
// RUN: env AMBER_PM_FENCE_NS=-5 not %run %t 2>&1 | FileCheck %s --check-prefix=BAD-FENCE
// RUN: env AMBER_PM_WRITE_NS=1000001 not %run %t 2>&1 | FileCheck %s --check-prefix=BIG-WRITE
// RUN: env AMBER_PM_FENCE_NS=5000000 not %amber info %t.heap 2>&1 | FileCheck %s --check-prefix=BIG-FENCE
// RUN: env AMBER_PM_WRITE_NS=1000000 AMBER_PM_FENCE_NS=1000000 AMBER_PM=none %run %t | FileCheck %s
#include <amber.h>
#include <stdio.h>

int main(void) {
  long *r = amber_root(64 * sizeof(long));
  for (int i = 0; i < 50; i++)
    AMBER_ATOMIC {
      for (int j = 0; j < 64; j += 8) r[j] += 1;
    }
  printf("value %ld\n", r[0]);
  return 0;
}
// CHECK: value 50
// TEXT: emulated delay {{ *[1-9][0-9]*}} ns (AMBER_PM_WRITE_NS 140 per line, AMBER_PM_FENCE_NS 200 per fence)
// TEXT-NONE: emulated delay {{ *}}0 ns (AMBER_PM_WRITE_NS 140 per line, AMBER_PM_FENCE_NS 0 per fence; not applied in this mode)
// BAD-WRITE: amber: error: AMBER_PM_WRITE_NS=abc is not a number
// BAD-FENCE: amber: error: AMBER_PM_FENCE_NS=-5 is not a number
// BIG-WRITE: amber: error: AMBER_PM_WRITE_NS=1000001 is more than 1000000 ns
// BIG-FENCE: amber: error: AMBER_PM_FENCE_NS=5000000 is more than 1000000 ns
