// A heap of another layout version is refused and left unchanged.
// RUN: %amber_cc -O1 %s -o %t
// RUN: rm -f %t.heap && %amber create %t.heap --size 2M
// RUN: %python -c "import struct,sys; f=open(sys.argv[1],'r+b'); f.seek(8); f.write(struct.pack('<I', 99))" %t.heap
// RUN: cp %t.heap %t.orig
// RUN: not %rerun %t 2>&1 | FileCheck %s
// RUN: cmp %t.heap %t.orig
// CHECK: amber: error: heap {{.*}} has layout version 99 but this amber reads version 12
#include <amber.h>
int main(void) {
  long *r = amber_root(sizeof *r);
  AMBER_ATOMIC { *r += 1; }
  return 0;
}
