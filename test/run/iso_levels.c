// AMBER_ATOMIC_ISO with every isolation level, mixed on the same data.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdio.h>

struct root { long si, ser, lin, def, seen; };

int main(void) {
  struct root *r = amber_root(sizeof *r);
  long seen = 0;
  AMBER_ATOMIC_ISO(AMBER_SI) { r->si += 1; }
  AMBER_ATOMIC_ISO(AMBER_SER) { r->ser += r->si + 1; }
  AMBER_ATOMIC_ISO(AMBER_LIN) { r->lin += r->ser + 1; }
  AMBER_ATOMIC_ISO(AMBER_ISO_DEFAULT) { r->def += r->lin + 1; }
  AMBER_ATOMIC_ISO(AMBER_SI) { seen = r->si + r->ser + r->lin + r->def; }
  AMBER_ATOMIC_ISO(AMBER_LIN) { r->seen = seen; }
  printf("si %ld ser %ld lin %ld def %ld seen %ld\n", r->si, r->ser, r->lin, r->def, r->seen);
  return 0;
}
// FIRST: si 1 ser 2 lin 3 def 4 seen 10
// SECOND: si 2 ser 5 lin 9 def 14 seen 30
