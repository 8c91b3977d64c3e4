// amber stats: on a fresh heap, after a program allocated, with --json (one
// JSON object), on a heap a crash left with recovery pending, and on the
// statistics file a program wrote (AMBER_STATS_FILE). Reading never writes
// the heap file.  The heap is a romulus one, named: the engine area lines
// show romulus' twin and state word, and the crash below is a kill inside a
// region (an irrevocable call, which mvcc does not run yet).  The program's
// runs keep the heap's engine (AMBER_ENGINE is unset).  run/default_engine.c
// covers mvcc, the default.
// RUN: %amber_cc -O1 %s -o %t
// RUN: rm -f %t.heap %t.json && %amber create %t.heap --size 4M --engine romulus
// RUN: cp %t.heap %t.orig
// RUN: %amber stats %t.heap | FileCheck %s --check-prefix=FRESH
// RUN: %amber stats %t.heap --json > %t.fresh.json
// RUN: %python -m json.tool %t.fresh.json > /dev/null
// RUN: cmp %t.heap %t.orig
// FRESH:      heap {{.*}}.heap
// FRESH-NEXT: engine romulus (layout version 12)
// FRESH-NEXT: state clean (opened 0 times)
// FRESH-NEXT: file 9502720 bytes: 65536 metadata, 4194304 data area, 4194304 engine area, 1048576 sync journal
// FRESH-NEXT: data area 1024 pages of 4096 bytes: 17 allocator metadata (data header, page table), 1007 allocatable
// FRESH-NEXT: used 0 objects, 0 bytes
// FRESH-NEXT: free 1007 pages (4124672 bytes); largest free run 1007 pages
// FRESH-NEXT: roots 0 (no program called amber_root yet)
// FRESH-NEXT: threads no thread table in layout version 12; per-thread log areas: none the romulus engine exposes
// FRESH-NEXT: arenas 0 of 16
// FRESH-NEXT: engine area 4194304 bytes at file offset 0x410000; state word 0x49444c45 ("IDLE")
// FRESH-NOT:  class
//
// The program: a root, three 100-byte objects (class 112), one of 10000
// bytes (3 pages).
// RUN: env AMBER_HEAP_SIZE=4M AMBER_STATS_FILE=%t.json %rerun %t | FileCheck %s --check-prefix=PROG
// RUN: cp %t.heap %t.orig
// RUN: %amber stats %t.heap | FileCheck %s --check-prefix=USED
// RUN: %amber stats %t.heap --json > %t.used.json
// RUN: %python -m json.tool %t.used.json > /dev/null
// RUN: %python -c "import json,sys; o=json.load(open(sys.argv[1])); c={k['size']: k for k in o['classes']}; \
// RUN:   assert o['state']=='clean' and not o['recovery_pending'] and o['roots']==1 and o['root_bytes']==64, o; \
// RUN:   assert o['used_objects']==5 and c[112]['objects']==3 and c[64]['objects']==1 and o['large_objects']==1, o; \
// RUN:   assert o['large_requested_bytes']==10000 and o['large_pages']==3 and o['damaged_descriptors']==0, o; \
// RUN:   assert o['free_pages']+o['slab_pages']+o['large_pages']==o['allocatable_pages'], o; \
// RUN:   assert o['threads']['persistent_table'] is False and o['arenas_in_use']>=1, o; print('stats json ok')" %t.used.json | FileCheck %s --check-prefix=JSON
// RUN: cmp %t.heap %t.orig
// RUN: %amber info %t.heap --json | %python -c "import json,sys; o=json.load(sys.stdin); assert o['roots']==1 and o['used_objects']==5 and o['state']=='clean', o"
// RUN: %amber check %t.heap --json | %python -c "import json,sys; o=json.load(sys.stdin); assert o['status']==0 and o['result']=='consistent' and o['used_objects']==5, o"
// RUN: cmp %t.heap %t.orig
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=INFO
// RUN: cmp %t.heap %t.orig
// RUN: %amber stats %t.heap --json --json | %python -m json.tool > /dev/null
// RUN: %amber stats --json %t.heap | %python -m json.tool > /dev/null
// RUN: cmp %t.heap %t.orig
// RUN: %amber stats %t.json | FileCheck %s --check-prefix=FILE
// RUN: %amber stats %t.json --json | %python -m json.tool | FileCheck %s --check-prefix=FILEJSON
// RUN: cmp %t.heap %t.orig
// The statistics file is left as it was too.
// RUN: cp %t.json %t.json.orig && %amber stats %t.json > /dev/null && cmp %t.json %t.json.orig
// RUN: cat %t.json %t.json > %t.two.json && %amber stats %t.two.json | FileCheck %s --check-prefix=TWO
//
// A crash inside a region (kill -9 by the program itself, after its first
// store) leaves recovery pending: stats shows what recovery will leave,
// without running it on the file.
// RUN: not env AMBER_HEAP_SIZE=4M %rerun %t crash
// RUN: cp %t.heap %t.orig
// RUN: %amber stats %t.heap | FileCheck %s --check-prefix=DIRTY
// RUN: %amber stats %t.heap --json | %python -c "import json,sys; o=json.load(sys.stdin); assert o['state']=='dirty' and o['recovery_pending'] and o['used_objects']==5, o"
// RUN: %amber check %t.heap --json | %python -c "import json,sys; o=json.load(sys.stdin); assert o['status']==0 and o['state']=='dirty' and o['recovery_pending'], o"
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=DIRTYINFO
// RUN: cmp %t.heap %t.orig
// RUN: %amber recover %t.heap && %amber stats %t.heap | FileCheck %s --check-prefix=RECOVERED
//
// Usage errors and files that are neither a heap nor statistics: status 2.
// RUN: sh -c '%amber stats 2>/dev/null; test $? = 2'
// RUN: sh -c '%amber stats %t.heap --bogus 2>&1; test $? = 2' | FileCheck %s --check-prefix=BOGUS
// RUN: sh -c '%amber stats %t.heap %t.json 2>&1; test $? = 2' | FileCheck %s --check-prefix=TWOFILES
// RUN: echo 'not json' > %t.txt && sh -c '%amber stats %t.txt 2>&1; test $? = 2' | FileCheck %s --check-prefix=NEITHER
// RUN: echo '{"a": 1,' > %t.bad.json && sh -c '%amber stats %t.bad.json 2>&1; test $? = 2' | FileCheck %s --check-prefix=BADJSON
// RUN: sh -c '%amber stats %t.missing 2>&1; test $? = 2' | FileCheck %s --check-prefix=MISSING
//
// PROG:     counter 1
// USED:      state clean (opened 1 time)
// USED:      used 5 objects, {{[0-9]+}} bytes
// USED:      roots 1: offset 0x{{[0-9a-f]+}}, 64 bytes
// USED:      class pages objects slots bytes fill
// USED-NEXT: 64 1 1 64 64 1.6%
// USED-NEXT: 112 {{[0-9]+}} 3 {{[0-9]+}} 336
// USED-NEXT: large 3 1 - 12288 (10000 bytes requested)
// JSON:      stats json ok
// INFO:      root offset 0x{{[0-9a-f]+}}, 64 bytes
// INFO-NEXT: threads no thread table in layout version 12; per-thread log areas: none the romulus engine exposes
// INFO-NEXT: state clean
// FILE:      {{.*}}.json
// FILE-NEXT:   engine romulus
// FILE-NEXT:   pm {{[a-z]+}}
// FILE-NEXT:   commits {{[0-9]+}}
// FILE:        flushes_per_update_txn {{[0-9.]+}}
// FILE:        ordo_boundary_ns {{[0-9.]+}}
// FILEJSON:  "update_commits": {{[0-9]+}},
// TWO:       {{.*}}.two.json, record 1 of 2
// TWO:       {{.*}}.two.json, record 2 of 2
// TWO-NEXT:    engine romulus
// DIRTY:     state dirty (opened 2 times); recovery is pending: the figures below are what it will leave
// DIRTY:     used 5 objects
// DIRTY:     engine area {{.*}}; state word 0x4d555441 ("MUTA")
// DIRTYINFO: state dirty (opened 2 times); recovery is pending
// RECOVERED: state dirty (opened 2 times); no recovery is needed
// RECOVERED: used 5 objects
// RECOVERED: state word 0x49444c45 ("IDLE")
// BOGUS:     amber: error: stats: unknown option '--bogus'; use amber stats HEAP|FILE.json [--json]
// TWOFILES:  amber: error: stats: one file at a time
// NEITHER:   amber: error: {{.*}}.txt is neither an amber heap {{.*}} nor a statistics file {{.*}}; pass one of those
// BADJSON:   amber: error: {{.*}}.bad.json, line {{[0-9]+}}: not a statistics file: the file ends inside an object
// MISSING:   amber: error: cannot open {{.*}}.missing: No such file or directory
#include <amber.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct root {
  void *p[4];
  long counter;
  long pad[3];
};

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  if (argc > 1 && !strcmp(argv[1], "crash")) {
    AMBER_ATOMIC {
      r->counter++;
      kill(getpid(), SIGKILL); /* an external call: the region is irrevocable, its first store durable */
    }
  }
  AMBER_ATOMIC {
    if (!r->p[0]) {
      for (int i = 0; i < 3; i++) r->p[i] = malloc(100);
      r->p[3] = malloc(10000);
    }
    r->counter++;
  }
  printf("counter %ld\n", r->counter);
  return 0;
}
