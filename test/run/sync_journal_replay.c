// The msync backend's sync journal (docs/engines/msync.md, "The sync
// journal"): a commit made durable through the journal survives the loss
// of its in-place page, and a clean close leaves nothing to replay.
//
// Power loss on a page-cache file cannot be staged here, so the test
// stages its effect: the program commits and dies without closing (the
// journal holds the commit; the page cache holds the in-place bytes too),
// then the in-place line of the committed word is overwritten in the file
// as if its page had never been written back.  The next open must put the
// journaled bytes back (42).  After a clean close, a later change to the
// line made outside amber (9) must survive the next open: the journal's
// entries were synced in place and voided at close, and replaying them
// would bring the old value (7) back.
// RUN: %amber_cc -O2 %s -o %t
// RUN: env AMBER_ENGINE=romulus AMBER_PM=msync AMBER_STATS_FILE=%t.json %run %t commit 5 > %t.off
// RUN: %python -c "import json; d=json.load(open('%t.json')); assert d['sync_journal_syncs'] > 0, d"
// RUN: env AMBER_ENGINE=romulus AMBER_PM=msync not --crash %run %t commit-crash 42 > %t.off
// RUN: %python %S/Inputs/poke_heap.py %t.heap %t.off 0
// amber info and amber check see what the journal holds, on a private copy:
// RUN: cp %t.heap %t.before
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=INFO
// RUN: %amber check %t.heap
// RUN: cmp %t.heap %t.before
// RUN: env AMBER_PM=msync AMBER_VERBOSE=1 %rerun %t read 2>&1 | FileCheck %s --check-prefix=REPLAY
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=EMPTY
// RUN: env AMBER_ENGINE=romulus AMBER_PM=msync %run %t commit 7 > %t.off
// RUN: %python %S/Inputs/poke_heap.py %t.heap %t.off 9
// RUN: env AMBER_PM=msync AMBER_VERBOSE=1 %rerun %t read 2>&1 | FileCheck %s --check-prefix=CLEAN
// Damage in the journal: its first entry changed after later syncs
// completed is refused at open (not a torn tail), and the file is left as
// it was.
// RUN: env AMBER_ENGINE=romulus AMBER_PM=msync not --crash %run %t commit-crash 42 > %t.off
// RUN: %python %S/Inputs/poke_heap.py %t.heap journal-entry-0 0x5a
// RUN: cp %t.heap %t.damaged
// RUN: env AMBER_PM=msync not %rerun %t read 2>&1 | FileCheck %s --check-prefix=DAMAGED
// RUN: cmp %t.heap %t.damaged
// A torn last sync (its first entry bad, nothing after it but its own) is
// the end of the journal, not damage: the open replays what came before.
// The same with an intact entry of that sync after the bad one (a tear in
// the sync's middle); but an intact entry of a later sync there is damage.
// RUN: env AMBER_ENGINE=romulus AMBER_PM=msync not --crash %run %t commit-crash 42 > %t.off
// RUN: cp %t.heap %t.crashed
// RUN: %python %S/Inputs/poke_heap.py %t.heap journal-last-sync 0x5a
// RUN: env AMBER_PM=msync AMBER_VERBOSE=1 %rerun %t read 2>&1 | FileCheck %s --check-prefix=TORN
// RUN: cp %t.crashed %t.heap && %python %S/Inputs/poke_heap.py %t.heap journal-torn-tail 0x5a
// RUN: env AMBER_PM=msync AMBER_VERBOSE=1 %rerun %t read 2>&1 | FileCheck %s --check-prefix=TORN
// RUN: cp %t.crashed %t.heap && %python %S/Inputs/poke_heap.py %t.heap journal-later-sync 0x5a
// RUN: env AMBER_PM=msync not %rerun %t read 2>&1 | FileCheck %s --check-prefix=LATER
// Without the journal the first case loses the commit (the test's own check):
// RUN: env AMBER_ENGINE=romulus AMBER_PM=msync AMBER_PM_JOURNAL=0 not --crash %run %t commit-crash 42 > %t.off
// RUN: %python %S/Inputs/poke_heap.py %t.heap %t.off 0
// RUN: env AMBER_PM=msync %rerun %t read 2>&1 | FileCheck %s --check-prefix=LOST
// INFO: journal      1048576 bytes; {{[1-9][0-9]*}} entries the next open replays (shown applied)
// EMPTY: journal      1048576 bytes, empty
// REPLAY: replayed {{[1-9][0-9]*}} sync journal entr
// REPLAY: value 42
// CLEAN-NOT: replayed
// CLEAN: value 9
// LOST: value 0
// TORN-NOT: error
// TORN: replayed {{[1-9][0-9]*}} sync journal entr
// TORN: value 42
// LATER: amber: error: heap {{.*}}: sync journal entry {{[1-9][0-9]*}} (file offset {{[0-9]+}}) is damaged, but entry {{[1-9][0-9]*}} of a later sync
// DAMAGED: amber: error: heap {{.*}}: sync journal entry 0 (file offset {{[0-9]+}}) is damaged, but entry {{[0-9]+}} of a later sync (file offset {{[0-9]+}}) is intact: commits made durable there would be lost; restore the heap from a copy
#include <amber.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  long *r = amber_root(4096);
  if (argc > 2) {
    long v = atol(argv[2]);
    AMBER_ATOMIC { r[100] = v; }
    /* The word's file offset: data area at 64 KiB, mapped at the heap's base. */
    uint64_t base = strtoull(getenv("AMBER_BASE") ? getenv("AMBER_BASE") : "0x550000000000", NULL, 0);
    printf("%llu\n", (unsigned long long)((uintptr_t)&r[100] - base + 65536));
    fflush(stdout);
    if (!strcmp(argv[1], "commit-crash")) raise(SIGKILL);
    return 0;
  }
  long v;
  AMBER_ATOMIC { v = r[100]; }
  printf("value %ld\n", v);
  return 0;
}
