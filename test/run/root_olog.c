// amber_root() of a root larger than an mvcc OLog ring holds (it used to be
// an error naming AMBER_MVCC_OLOG): with default logs its transaction
// restarts alone and commits (docs/engines/mvcc.md, "Large transactions");
// with the option raised on a new heap it commits through the OLog.
// RUN: %amber_cc -O1 %s -o %t
// RUN: env AMBER_STATS_FILE=%t.json %run %t 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: FileCheck %s --check-prefix=ALONE < %t.json
// RUN: env AMBER_MVCC_OLOG=8M AMBER_STATS_FILE=%t.json %run %t | FileCheck %s --check-prefix=BIG
// RUN: FileCheck %s --check-prefix=RING < %t.json
// ALONE: "large_txns": 1,
// RING: "large_txns": 0,
// BIG: root of 2097152 bytes, last byte 0
#include <amber.h>
#include <stdio.h>

int main(void) {
  unsigned char *root = amber_root(2u << 20);
  printf("root of %u bytes, last byte %u\n", 2u << 20, root[(2u << 20) - 1]);
  return 0;
}
