// A new heap's data area goes at the default base, 0x550000000000 (free
// under AddressSanitizer, ThreadSanitizer and MemorySanitizer too;
// docs/guide.md, Heap sizing).  A heap created at another base, such as the
// old default 0x600000000000, keeps it: it opens at that base without
// AMBER_BASE, and its pointers stay valid.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=NEW
// RUN: env AMBER_BASE=0x600000000000 %run %t | FileCheck %s --check-prefix=OLD1
// RUN: %rerun %t | FileCheck %s --check-prefix=OLD2
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=INFO
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>

struct root {
  long runs;
  long *cell;
};

int main(void) {
  struct root *r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    r->runs++;
    if (!r->cell) r->cell = calloc(1, sizeof *r->cell);
    *r->cell += 7;
  }
  printf("root %p runs %ld cell %p = %ld\n", (void *)r, r->runs, (void *)r->cell, *r->cell);
  return 0;
}
// NEW: root 0x5500{{[0-9a-f]+}} runs 1 cell 0x5500{{[0-9a-f]+}} = 7
// OLD1: root 0x6000{{[0-9a-f]+}} runs 1 cell 0x6000{{[0-9a-f]+}} = 7
// OLD2: root 0x6000{{[0-9a-f]+}} runs 2 cell 0x6000{{[0-9a-f]+}} = 14
// INFO: base 0x600000000000
