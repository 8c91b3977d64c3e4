// mvcc engine: loads of blocks the running transaction wrote itself are
// inline too (docs/engines/mvcc.md, "Inline loads", case 2b: the lock
// word is the transaction's own pending copy).  They must return what the
// transaction stored, the rest of the block as its snapshot had it, and
// nothing of another transaction's pending copy.
//   one: a region stores some words of a block and reads the whole block
//     back (its stores, and the block's other words), 1000 times, the
//     block's words set outside regions to known values first.
//   threads: two threads increment counters that share blocks, each
//     region reading back what it stored and what the other thread's
//     committed (exact totals; a read of the other's pending copy would
//     lose increments or fail the check).
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: %amber_cc -O0 %s -o %t.O0 -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=si %run %t | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t.O0 | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t | FileCheck %s
// CHECK: one: bad 0 sum 1072000
// CHECK-NEXT: threads: a 20000 b 20000 bad 0
#include <amber.h>
#include <pthread.h>
#include <stdio.h>

struct root {
  long blk[8] __attribute__((aligned(64))); /* one 64-byte block */
  long ctr[2][8] __attribute__((aligned(64)));
};
static struct root *r;
static long bad;
static long badt[2];

/* noinline: loads through a pointer the pass cannot prove private. */
__attribute__((noinline)) static long read_all(const long *b, long *out) {
  long s = 0;
  for (int i = 0; i < 8; i++) {
    out[i] = b[i];
    s += b[i];
  }
  return s;
}

static void *worker(void *arg) {
  long id = (long)arg;
  long nbad = 0;
  for (int i = 0; i < 10000; i++) {
    AMBER_ATOMIC {
      /* Both threads write both blocks: ctr[0][id] and ctr[1][id]. */
      long a = r->ctr[0][id] + 1, b = r->ctr[1][id] + 1;
      r->ctr[0][id] = a;
      r->ctr[1][id] = b;
      long got[8];
      read_all(r->ctr[0], got);
      if (got[id] != a) nbad++;
      read_all(r->ctr[1], got);
      if (got[id] != b) nbad++;
    }
  }
  badt[id] = nbad;
  return NULL;
}

int main(void) {
  r = amber_root(sizeof *r);
  for (int i = 0; i < 8; i++) r->blk[i] = i + 1;
  long sum = 0;
  for (int k = 0; k < 1000; k++) {
    long s = 0, got[8];
    int ok = 1;
    AMBER_ATOMIC {
      r->blk[k % 8] += 1000; /* this transaction's own copy of the block */
      s = read_all(r->blk, got);
      ok = got[k % 8] >= 1000;
      r->blk[k % 8] -= 1000;
      s += read_all(r->blk, got);
      ok = ok && got[k % 8] < 1000;
    }
    sum += s;
    bad += !ok;
  }
  /* Each region: (36 + 1000) + 36. */
  printf("one: bad %ld sum %ld\n", bad, sum);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 8; j++) r->ctr[i][j] = 0;
  pthread_t t[2];
  for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  long a = 0, b = 0;
  AMBER_ATOMIC {
    a = r->ctr[0][0] + r->ctr[0][1];
    b = r->ctr[1][0] + r->ctr[1][1];
  }
  printf("threads: a %ld b %ld bad %ld\n", a, b, badt[0] + badt[1]);
  return 0;
}
