// A heap whose base address is already mapped in the process is refused with
// the address named, and the heap file is left unchanged.
// RUN: %amber_cc -O1 %s -o %t
// RUN: rm -f %t.heap && %amber create %t.heap --size 2M --base 0x700000000000
// RUN: cp %t.heap %t.orig
// RUN: not %rerun %t 2>&1 | FileCheck %s
// RUN: cmp %t.heap %t.orig
// CHECK: amber: error: cannot map heap {{.*}} at its base address 0x700000000000 {{.*}}address range already in use
#include <amber.h>
#include <sys/mman.h>

/* Runs before the runtime's initialisation (priority 101). */
__attribute__((constructor(100))) static void squat(void) {
  mmap((void *)0x700000000000ul, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
}

int main(void) {
  long *r = amber_root(sizeof *r);
  AMBER_ATOMIC { *r += 1; }
  return 0;
}
