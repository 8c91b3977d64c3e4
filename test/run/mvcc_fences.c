// mvcc engine accounting (issue [6/7]): one fence per update transaction
// (its OLog record's), none per read-only transaction.  On an existing heap
// (no formatting), 100 update and 300 read-only regions (and amber_root's
// lookup, a read-only transaction too) issue exactly 100
// log fences, and read-only regions issue neither flush nor fence.  Under
// romulus read-only regions are also fence-free (the counter is generic).
// RUN: %amber_cc -O2 %s -o %t
// RUN: env AMBER_ENGINE=mvcc %run %t > /dev/null
// RUN: env AMBER_STATS_FILE=%t.json %rerun %t
// RUN: FileCheck %s < %t.json
// RUN: env AMBER_ENGINE=romulus %run %t > /dev/null
// RUN: env AMBER_STATS_FILE=%t.r.json %rerun %t
// RUN: FileCheck %s --check-prefix=ROMULUS < %t.r.json
#include <amber.h>

struct root { long v[64]; };

int main(void) {
  struct root *r = amber_root(sizeof *r);
  long s = 0;
  for (int i = 0; i < 100; i++) {
    AMBER_ATOMIC { r->v[i % 64] += i; }
    for (int j = 0; j < 3; j++) AMBER_ATOMIC { s += r->v[(i + j) % 64]; }
  }
  return s < 0;
}
// CHECK: "update_commits": 100, "readonly_commits": 301
// CHECK-SAME: "fences_per_readonly_txn": 0.000, "flushes_per_readonly_txn": 0.000
// CHECK-SAME: "fences_log": 100
// ROMULUS: "readonly_commits": 300
// ROMULUS-SAME: "fences_per_readonly_txn": 0.000, "flushes_per_readonly_txn": 0.000
