// Transactions that allocate a lot.  One region's consecutive small
// allocations share the slab pages the region itself made (each used to
// take a page of its own: 50,000 16-byte objects then needed 200 MB of an
// 8 MB heap).  And on mvcc, a record that fits the thread's OLog ring but
// neither before the ring's end nor behind the pad that would fill it
// (record and pad together larger than the ring) used to make its region
// restart forever; the empty ring now moves to its next lap.  Regions of
// 800 to 3,200 allocations (value records of 20 bytes a node: 16 to 64
// KiB in 64 KiB rings) after small ones put the head everywhere in the
// ring.
// RUN: %amber_cc -O1 %s -o %t
// RUN: env AMBER_ENGINE=mvcc AMBER_HEAP_SIZE=8M %run timeout 120 %t big 50000 | FileCheck %s --check-prefix=BIG
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// RUN: env AMBER_ENGINE=romulus AMBER_HEAP_SIZE=8M %run timeout 120 %t big 50000 | FileCheck %s --check-prefix=BIG
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// RUN: env AMBER_ENGINE=mvcc AMBER_HEAP_SIZE=8M AMBER_MVCC_OLOG=64K %run timeout 120 %t laps 0 | FileCheck %s --check-prefix=LAPS
// RUN: env AMBER_HEAP_SIZE=8M %rerun %t count 0 | FileCheck %s --check-prefix=AGAIN
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// BIG: nodes 50000 sum 1249975000
// CHECKED: consistent
// LAPS: nodes 72000 laps ok
// AGAIN: nodes 72000
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node { long v; struct node *next; };
struct root { struct node *head; long small; };

static long count(struct root *r, long *sum) {
  long n = 0, s = 0;
  AMBER_ATOMIC {
    n = 0;
    s = 0;
    for (struct node *x = r->head; x; x = x->next) {
      n++;
      s += x->v;
    }
  }
  *sum = s;
  return n;
}

static void push(struct root *r, long k) {
  AMBER_ATOMIC {
    for (long i = 0; i < k; i++) {
      struct node *x = malloc(sizeof *x);
      x->v = i;
      x->next = r->head;
      r->head = x;
    }
  }
}

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  long k = atol(argv[2]), sum = 0;
  if (!strcmp(argv[1], "big")) {
    push(r, k);
    printf("nodes %ld sum %ld\n", count(r, &sum), sum);
  } else if (!strcmp(argv[1], "laps")) {
    long want = 0;
    for (long big = 800; big <= 3200; big += 300)
      for (int rep = 0; rep < 4; rep++) {
        for (int s = 0; s < 37 * rep; s++)
          AMBER_ATOMIC { r->small++; } /* small records move the head a little */
        push(r, big);
        want += big;
      }
    printf("nodes %ld laps %s\n", count(r, &sum), count(r, &sum) == want ? "ok" : "WRONG");
  } else {
    printf("nodes %ld\n", count(r, &sum));
  }
  return 0;
}
