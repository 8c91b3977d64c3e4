// The engine of a new heap: mvcc when AMBER_ENGINE is unset (a program's
// first run and `amber create` alike), else the one named.  An existing heap
// keeps the engine it was created for: a program on a romulus heap runs on
// romulus without AMBER_ENGINE, and naming another engine is refused before
// anything is written.  A name that is no engine is an error that lists them.
// RUN: %amber_cc -O2 %s -o %t
//
// A program's first run creates an mvcc heap.
// RUN: env AMBER_STATS_FILE=%t.json %run %t | FileCheck %s --check-prefix=RUN1
// RUN: FileCheck %s --check-prefix=MVCCSTATS < %t.json
// RUN: %amber info %t.heap | FileCheck %s --check-prefix=MVCC
// RUN: cp %t.heap %t.orig
// RUN: env AMBER_ENGINE=romulus not %rerun %t 2>&1 | FileCheck %s --check-prefix=NOTROM
// RUN: cmp %t.heap %t.orig
// RUN: env AMBER_ENGINE=mvcc %rerun %t | FileCheck %s --check-prefix=RUN2
//
// amber create without --engine: mvcc too.
// RUN: rm -f %t.c.heap && %amber create %t.c.heap --size 4M
// RUN: %amber info %t.c.heap | FileCheck %s --check-prefix=MVCC
//
// A romulus heap stays romulus when AMBER_ENGINE is unset.
// RUN: rm -f %t.r.heap && %amber create %t.r.heap --size 4M --engine romulus
// RUN: env AMBER_HEAP=%t.r.heap AMBER_STATS_FILE=%t.r.json %t | FileCheck %s --check-prefix=RUN1
// RUN: FileCheck %s --check-prefix=ROMSTATS < %t.r.json
// RUN: %amber info %t.r.heap | FileCheck %s --check-prefix=ROM
// RUN: cp %t.r.heap %t.r.orig
// RUN: env AMBER_HEAP=%t.r.heap AMBER_ENGINE=mvcc not %t 2>&1 | FileCheck %s --check-prefix=NOTMVCC
// RUN: cmp %t.r.heap %t.r.orig
//
// Names that are no engine (or not built yet) create nothing.
// RUN: rm -f %t.x.heap
// RUN: env AMBER_ENGINE=tinystm AMBER_HEAP=%t.x.heap not %t 2>&1 | FileCheck %s --check-prefix=BOGUS
// RUN: env AMBER_ENGINE=htm AMBER_HEAP=%t.x.heap not %t 2>&1 | FileCheck %s --check-prefix=HTM
// RUN: not %amber create %t.x.heap --size 4M --engine tinystm 2>&1 | FileCheck %s --check-prefix=CREATE
// RUN: test ! -e %t.x.heap
// RUN: rm -f %t.c.heap %t.r.heap %t.r.orig %t.orig
//
// RUN1:      runs 1
// RUN2:      runs 2
// MVCCSTATS: {"engine": "mvcc",
// MVCC:      engine mvcc
// ROMSTATS:  {"engine": "romulus",
// ROM:       engine romulus
// NOTROM:    amber: error: heap {{.*}}.heap was created for engine mvcc but AMBER_ENGINE=romulus; unset AMBER_ENGINE or use a new heap file
// NOTMVCC:   amber: error: heap {{.*}}.r.heap was created for engine romulus but AMBER_ENGINE=mvcc; unset AMBER_ENGINE or use a new heap file
// BOGUS:     amber: error: AMBER_ENGINE=tinystm is not an engine; use mvcc (default) or romulus
// HTM:       amber: error: AMBER_ENGINE=htm: that engine is not built yet; use mvcc or romulus
// CREATE:    amber: error: engine 'tinystm' is not built into this amber; use mvcc or romulus
#include <amber.h>
#include <stdio.h>

struct root { long runs; };

int main(void) {
  struct root *r = amber_root(sizeof *r);
  long n = 0;
  AMBER_ATOMIC { n = ++r->runs; }
  printf("runs %ld\n", n);
  return 0;
}
