// A header whose checksum does not match is refused, by the runtime and by
// amber check, and the file is left unchanged.
// RUN: %amber_cc -O1 %s -o %t
// RUN: rm -f %t.heap && %amber create %t.heap --size 2M
// RUN: %python -c "import sys; f=open(sys.argv[1],'r+b'); f.seek(20); b=f.read(1); f.seek(20); f.write(bytes([b[0]^0x40]))" %t.heap
// RUN: cp %t.heap %t.orig
// RUN: not %rerun %t 2>&1 | FileCheck %s
// RUN: cmp %t.heap %t.orig
// RUN: not %amber check %t.heap 2>&1 | FileCheck %s
// RUN: not %amber recover %t.heap 2>&1 | FileCheck %s
// RUN: cmp %t.heap %t.orig
// CHECK: amber: error: heap {{.*}} has a corrupt header (checksum
#include <amber.h>
int main(void) {
  long *r = amber_root(sizeof *r);
  AMBER_ATOMIC { *r += 1; }
  return 0;
}
