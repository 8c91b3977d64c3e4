// amber check, info and stats on a good heap, a damaged one and a file that
// is not a heap: the verdict as the exit status (0 consistent, 1 damaged,
// 2 unusable) and, with --json, as one JSON object on stdout (problems on
// stderr); none of them writes the file.
// RUN: %amber_cc -O1 %s -o %t
// RUN: env AMBER_HEAP_SIZE=4M %run %t | FileCheck %s --check-prefix=PROG
// RUN: cp %t.heap %t.orig
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=GOOD
// RUN: %amber check %t.heap --json > %t.good.json
// RUN: %python -c "import json,sys; o=json.load(open(sys.argv[1])); assert o['status']==0 and o['result']=='consistent' and o['problems']==0 and o['roots']==1, o" %t.good.json
// RUN: cmp %t.heap %t.orig
//
// Page 17, the first allocatable page (the root's slab), gets a descriptor
// of unknown kind in the data area (the heap's engine is mvcc, the default:
// on a clean heap the data area is the only copy of the allocator metadata).
// RUN: cp %t.heap %t.bad
// RUN: %python -c "import sys; f=open(sys.argv[1],'r+b'); f.seek(65536+4096+17*64); f.write(bytes([7]))" %t.bad
// RUN: cp %t.bad %t.bad.orig
// RUN: %python %S/../fuzz/Inputs/expect-exit.py 1 %amber check %t.bad 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: %python %S/../fuzz/Inputs/expect-exit.py 1 %amber check %t.bad --json > %t.bad.json 2> %t.bad.err
// RUN: %python -c "import json,sys; o=json.load(open(sys.argv[1])); assert o['status']==1 and o['result']=='damaged' and o['problems']>=1, o" %t.bad.json
// RUN: FileCheck %s --check-prefix=BAD < %t.bad.err
// RUN: %python %S/../fuzz/Inputs/expect-exit.py 1 %amber stats %t.bad 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: %python %S/../fuzz/Inputs/expect-exit.py 1 %amber stats %t.bad --json > %t.stats.out 2>&1
// RUN: FileCheck %s --check-prefix=STATS < %t.stats.out
// RUN: %python %S/../fuzz/Inputs/expect-exit.py 1 %amber info %t.bad 2>&1 | FileCheck %s --check-prefix=INFO
// RUN: cmp %t.bad %t.bad.orig
//
// Not a heap: refused at open, status 2, still one JSON object with --json.
// RUN: head -c 100000 /dev/zero > %t.zero
// RUN: %python %S/../fuzz/Inputs/expect-exit.py 2 %amber check %t.zero --json > %t.zero.json 2> %t.zero.err
// RUN: %python -c "import json,sys; o=json.load(open(sys.argv[1])); assert o['status']==2 and o['result']=='unusable', o" %t.zero.json
// RUN: FileCheck %s --check-prefix=NOTHEAP < %t.zero.err
// RUN: %python %S/../fuzz/Inputs/expect-exit.py 2 %amber info %t.zero --json
// RUN: %python %S/../fuzz/Inputs/expect-exit.py 2 %amber check %t.zero --bogus
// PROG:    root 1
// GOOD:    {{.*}}.heap: consistent (mvcc engine, 2 objects
// BAD:     amber: error: heap {{.*}}.bad: page 17 has a descriptor of unknown kind 7
// BAD:     amber: error: heap {{.*}}.bad is damaged: {{[0-9]+}} problems (listed above); restore it from a copy
// STATS:   amber: error: heap {{.*}}.bad: page 17 has a descriptor of unknown kind 7
// STATS:   amber: error: heap {{.*}}.bad: no statistics for a heap whose allocator metadata is damaged; run amber check
// STATS-NOT: {
// INFO:    amber: error: heap {{.*}}.bad: page 17 has a descriptor of unknown kind 7
// INFO:    used {{[0-9]+}} objects, {{[0-9]+}} bytes (the allocator metadata is damaged: run amber check)
// NOTHEAP: amber: error: {{.*}}.zero is not an amber heap
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
struct root {
  long *p;
};
int main(void) {
  struct root *r = amber_root(sizeof *r);
  AMBER_ATOMIC { r->p = malloc(sizeof *r->p); }
  printf("root %d\n", r->p != NULL);
  return 0;
}
