// amber_root() of a root larger than an mvcc OLog ring holds: the error
// names amber_root and the size (not "(runtime)"), and says which option to
// raise; with that option raised on a new heap, the same call succeeds.
// RUN: %amber_cc -O1 %s -o %t
// RUN: not %run %t 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: env AMBER_MVCC_OLOG=8M %run %t | FileCheck %s --check-prefix=BIG
// SMALL: amber: error: amber_root(2097152 bytes) writes a {{[0-9]+}}-byte OLog record, more than its thread's OLog ring holds; raise AMBER_MVCC_OLOG
// BIG: root of 2097152 bytes, last byte 0
#include <amber.h>
#include <stdio.h>

int main(void) {
  unsigned char *root = amber_root(2u << 20);
  printf("root of %u bytes, last byte %u\n", 2u << 20, root[(2u << 20) - 1]);
  return 0;
}
