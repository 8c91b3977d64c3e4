// Transactions of any size the heap can hold (issue 18 part 5), with
// default log options on every engine: one region allocating a million
// 16-byte objects, and one region writing 64 MiB over committed data, each
// verified after reopening the heap.  On mvcc both outgrow the thread's
// TLog (8 MiB) and the CLog (4 MiB) and restart alone, in place, with undo
// entries that spill into free heap pages (docs/engines/mvcc.md, "Large
// transactions"): large_txns and undo_spilled_entries show that path ran.
// When the heap is too small, the error says how large the transaction was
// and how large the heap is, and the heap reopens without any of it.
// RUN: %amber_cc -O1 %s -o %t
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.json %run %t alloc 1000000 | FileCheck %s --check-prefix=ALLOC
// RUN: FileCheck %s --check-prefix=SPILLED < %t.json
// RUN: %rerun %t count 0 | FileCheck %s --check-prefix=ALLOC
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// RUN: env AMBER_ENGINE=mvcc AMBER_OLOG=values %run %t alloc 1000000 | FileCheck %s --check-prefix=ALLOC
// RUN: %rerun %t count 0 | FileCheck %s --check-prefix=ALLOC
// RUN: env AMBER_ENGINE=romulus %run %t alloc 1000000 | FileCheck %s --check-prefix=ALLOC
// RUN: %rerun %t count 0 | FileCheck %s --check-prefix=ALLOC
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// RUN: env AMBER_ENGINE=mvcc AMBER_HEAP_SIZE=256M AMBER_STATS_FILE=%t.json %run %t write 64 | FileCheck %s --check-prefix=WRITE
// RUN: FileCheck %s --check-prefix=SPILLED < %t.json
// RUN: env AMBER_HEAP_SIZE=256M %rerun %t count 0 | FileCheck %s --check-prefix=WRITE
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// RUN: env AMBER_ENGINE=romulus AMBER_HEAP_SIZE=256M %run %t write 64 | FileCheck %s --check-prefix=WRITE
// RUN: env AMBER_HEAP_SIZE=256M %rerun %t count 0 | FileCheck %s --check-prefix=WRITE
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// Too small: a region that replaces 16 MiB of data by 64 MiB does not fit a
// 100 MiB heap with its undo log; a million objects do not fit 16 MiB next to their undo
// log on mvcc, nor 8 MiB on romulus.  Nothing of the transaction remains.
// RUN: env AMBER_ENGINE=mvcc AMBER_HEAP_SIZE=100M %run %t write 16 | FileCheck %s --check-prefix=SMALLW
// RUN: not env AMBER_HEAP_SIZE=100M %rerun %t replace 64 2>&1 | FileCheck %s --check-prefix=UNDOFULL
// RUN: env AMBER_HEAP_SIZE=100M %rerun %t count 0 | FileCheck %s --check-prefix=SMALLW
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// RUN: not env AMBER_ENGINE=mvcc AMBER_HEAP_SIZE=16M %run %t alloc 1000000 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: env AMBER_HEAP_SIZE=16M %rerun %t count 0 | FileCheck %s --check-prefix=NONE
// RUN: not env AMBER_ENGINE=romulus AMBER_HEAP_SIZE=8M %run %t alloc 1000000 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: env AMBER_HEAP_SIZE=8M %rerun %t count 0 | FileCheck %s --check-prefix=NONE
// ALLOC: nodes 1000000 sum 499999500000 words 0 gen 0 bad 0
// WRITE: nodes 0 sum 0 words 8388608 gen 2 bad 0
// SMALLW: nodes 0 sum 0 words 2097152 gen 2 bad 0
// NONE: nodes 0 sum 0 words 0 gen 0 bad 0
// SPILLED: "large_txns": {{[1-9]}}, "undo_spilled_entries": {{[1-9][0-9]+}}, "undo_spill_segments": {{[1-9]}}
// CHECKED: consistent
// UNDOFULL: amber: error: region main#{{[0-9]+}} runs alone and in place and has written {{[0-9]+}} distinct 64-byte blocks ({{[0-9]+}} bytes); their undo log ({{[0-9]+}} bytes so far) has no room left in heap {{.*}} (104857600 bytes of data area): the transaction is larger than the heap can hold; recreate it with a larger AMBER_HEAP_SIZE
// FULL: amber: error: persistent heap {{.*}} is full: cannot allocate 16 bytes after the running transaction allocated {{[0-9]+}} bytes in {{[0-9]+}} objects; recreate it with a larger AMBER_HEAP_SIZE (now {{[0-9]+}} bytes of data area)
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node { long v; struct node *next; };
struct root { struct node *head; long *buf; long nbuf; long gen; };

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  long k = atol(argv[2]);
  if (!strcmp(argv[1], "alloc")) {
    AMBER_ATOMIC {
      for (long i = 0; i < k; i++) {
        struct node *x = malloc(sizeof *x);
        x->v = i;
        x->next = r->head;
        r->head = x;
      }
    }
  } else if (!strcmp(argv[1], "write")) {
    long n = k * 1024 * 1024 / (long)sizeof(long);
    if (!r->buf) {
      AMBER_ATOMIC { /* committed data to write over */
        r->buf = malloc(n * sizeof(long));
        for (long i = 0; i < n; i++) r->buf[i] = i * 7;
        r->nbuf = n;
        r->gen = 1;
      }
    }
    AMBER_ATOMIC {
      r->gen++;
      for (long i = 0; i < n; i++) r->buf[i] = i * 7 + r->gen;
    }
  }
  if (!strcmp(argv[1], "replace")) {
    long n = k * 1024 * 1024 / (long)sizeof(long);
    AMBER_ATOMIC {
      long *b = malloc(n * sizeof(long));
      for (long i = 0; i < n; i++) b[i] = i * 7 + r->gen + 1;
      free(r->buf);
      r->buf = b;
      r->nbuf = n;
      r->gen++;
    }
  }
  long nodes = 0, sum = 0, bad = 0;
  for (struct node *x = r->head; x; x = x->next) {
    nodes++;
    sum += x->v;
  }
  for (long i = 0; i < r->nbuf; i++) bad += r->buf[i] != i * 7 + r->gen;
  printf("nodes %ld sum %ld words %ld gen %ld bad %ld\n", nodes, sum, r->nbuf, r->gen, bad);
  return 0;
}
