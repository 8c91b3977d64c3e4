// A region's qsort left in the middle (issue 22, wrappers/sort.c): the
// comparator (its transactional clone) calls amber_retry after some
// comparisons, on 40 runs of a region that sorts a 64 KiB persistent array,
// and amber_cancel on another.  Each leaves by siglongjmp, past the sort's
// frames: the copies the sort works on (three of 64 KiB) and any temporary
// of the sort itself must not be lost each time (before: 40 x 128 KiB of
// copies, and glibc's 64 KiB merge buffer, leaked).  The heap growth of the
// process is measured with mallinfo2 (no timing).  Then the same sort to its
// end: sorted, and equal elements in the C library's order (the region's
// sort is a stable merge sort, as glibc's qsort is), checked against qsort
// outside regions on ordinary memory.  The heap holds its root alone
// (amber check: one object): no copy of the sort was persistent.
// RUN: %amber_cc -O2 %s -o %t
// RUN: env AMBER_ENGINE=mvcc %run %t | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t | FileCheck %s
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// CHECK: retries: 40 runs left mid-sort, heap growth under 1 MiB: 1
// CHECK-NEXT: cancel: left mid-sort, array unchanged 1, heap growth under 1 MiB: 1
// CHECK-NEXT: sorted 1, same order as qsort outside regions 1
// CHECKED: consistent ({{[a-z]+}} engine, 1 objects, 65536 bytes in use of {{[0-9]+}}, root at offset {{0x[0-9a-f]+}}, 65536 bytes)
#include <amber.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 8192 /* 64 KiB of elements */
#define RETRIES 40

struct elem {
  int key, seq; /* many equal keys: seq shows their order */
};
struct root {
  struct elem a[N];
};

static AMBER_UNISOLATED long compares, runs, leave_after;
static AMBER_UNISOLATED int cancel_it;

static int by_key(const void *x, const void *y) {
  const struct elem *a = x, *b = y;
  if (leave_after && ++compares == leave_after) {
    if (cancel_it) amber_cancel();
    amber_retry();
  }
  return (a->key > b->key) - (a->key < b->key);
}
static int by_key_plain(const void *x, const void *y) {
  const struct elem *a = x, *b = y;
  return (a->key > b->key) - (a->key < b->key);
}

static size_t heap_in_use(void) {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

int main(void) {
  struct root *r = amber_root(sizeof *r);
  static struct elem orig[N];
  unsigned s = 7;
  for (int i = 0; i < N; i++) {
    s = s * 1103515245u + 12345u;
    orig[i].key = (int)(s >> 16) % 97;
    orig[i].seq = i;
  }
  memcpy(r->a, orig, sizeof orig); /* outside regions: its own transaction */
  /* The thread's first big region sort makes what it keeps (the thread's
   * transaction state, logs): not counted. */
  AMBER_ATOMIC { qsort(r->a, N, sizeof r->a[0], by_key); }
  memcpy(r->a, orig, sizeof orig);

  size_t before = heap_in_use();
  leave_after = 5000; /* mid-sort: a full sort makes about 100000 comparisons */
  AMBER_ATOMIC {
    compares = 0;
    if (++runs > RETRIES) leave_after = 0;
    qsort(r->a, N, sizeof r->a[0], by_key);
  }
  size_t after = heap_in_use();
  printf("retries: %d runs left mid-sort, heap growth under 1 MiB: %d\n", RETRIES, runs > RETRIES && after < before + (1 << 20));

  memcpy(r->a, orig, sizeof orig);
  before = heap_in_use();
  leave_after = 5000;
  cancel_it = 1;
  compares = 0;
  AMBER_ATOMIC { qsort(r->a, N, sizeof r->a[0], by_key); }
  leave_after = 0;
  after = heap_in_use();
  printf("cancel: left mid-sort, array unchanged %d, heap growth under 1 MiB: %d\n", !memcmp(r->a, orig, sizeof orig),
         after < before + (1 << 20));

  AMBER_ATOMIC { qsort(r->a, N, sizeof r->a[0], by_key); }
  static struct elem want[N];
  memcpy(want, orig, sizeof orig);
  qsort(want, N, sizeof want[0], by_key_plain);
  int sorted = 1;
  for (int i = 1; i < N; i++) sorted &= r->a[i - 1].key <= r->a[i].key;
  printf("sorted %d, same order as qsort outside regions %d\n", sorted, !memcmp(r->a, want, sizeof want));
  return 0;
}
