// The mvcc OLog record's size (docs/format.md, layout 11): a record with no
// conditional dependency (every record on AMBER_PM=pmem, where early lock
// release is off, and every one of a single thread on msync) is a 56-byte
// header and its body, nothing more.  Issue 26's regression: the header had
// grown to 96 bytes for four dependency slots on every backend.  A fixed
// single-threaded workload on a prepared heap: 200 update regions, each
// writing one 8-byte counter, so each value record is 56 (header) + 16
// (range) + 8 (bytes) = 80 bytes, and the statistics count exactly
// 200 * 80 OLog bytes.  A heap of layout version 10 (96-byte headers) is
// refused with the layout-version error and left unchanged.
// RUN: %amber_cc -O2 %s -o %t
// RUN: env AMBER_ENGINE=mvcc AMBER_OLOG=values %run %t init
// RUN: env AMBER_OLOG=values AMBER_PM=pmem AMBER_STATS_FILE=%t.json %rerun %t bump 200 | FileCheck %s --check-prefix=BUMP1
// RUN: %python -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['pm'], s['early_lock_release'], s['olog_bytes'], s['olog_bytes_per_update_txn'], s['elr_conditional_commits'])" %t.json | FileCheck %s --check-prefix=PMEM
// RUN: env AMBER_OLOG=values AMBER_PM=msync AMBER_STATS_FILE=%t.json %rerun %t bump 200 | FileCheck %s --check-prefix=BUMP2
// RUN: %python -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['pm'], s['early_lock_release'], s['olog_bytes'], s['olog_bytes_per_update_txn'], s['elr_conditional_commits'])" %t.json | FileCheck %s --check-prefix=MSYNC
// RUN: %amber check %t.heap
// RUN: cp %t.heap %t.old
// RUN: %python -c "import sys, struct; sys.path.insert(0, sys.argv[2]); import mvheap; b = bytearray(open(sys.argv[1], 'rb').read()); n = mvheap.HDR.size - 4; struct.pack_into('<I', b, 8, 10); struct.pack_into('<I', b, n, mvheap.crc32c(bytes(b[:n]))); open(sys.argv[1], 'wb').write(b)" %t.old %S/../fuzz/Inputs
// RUN: cp %t.old %t.old.copy
// RUN: not env AMBER_HEAP=%t.old %t show 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: cmp %t.old %t.old.copy
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct root { long counter[64]; };

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  const char *cmd = argc > 1 ? argv[1] : "show";
  int k = argc > 2 ? atoi(argv[2]) : 0;
  if (!strcmp(cmd, "bump"))
    for (int i = 0; i < k; i++)
      AMBER_ATOMIC { r->counter[(i % 8) * 8]++; } /* one 8-byte range, a different 64-byte block each time round */
  long sum = 0;
  AMBER_ATOMIC {
    sum = 0;
    for (int i = 0; i < 64; i++) sum += r->counter[i];
  }
  printf("sum %ld\n", sum);
  return 0;
}
// BUMP1: sum 200
// PMEM: pmem 0 16000 80.0 0
// BUMP2: sum 400
// MSYNC: msync 1 16000 80.0 0
// OLD: amber: error: heap {{.*}}.old has layout version 10 but this amber reads version 12; use the amber that created it (or recreate the heap)
