// The undo log of ordinary memory keeps a large block written in a region
// (a memcpy of 64 bytes or more, as labyrinth's grid copy) as one record of
// its old bytes (tx/tx.c, amber_tx_undo_volatile).  A cancelled region must
// still restore every byte, in the order the stores were made: single words
// before and after the block, over it; blocks overlapping each other;
// unaligned starts and odd lengths; a block larger than the first chunk of
// the log's byte buffer; a second region after the first reuses the buffer.
// A committed region keeps its stores.  Both engines, -O0 and -O2.
// RUN: %amber_cc -O0 %s -o %t.O0
// RUN: %amber_cc -O2 %s -o %t.O2
// RUN: env AMBER_ENGINE=mvcc %run %t.O0 | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t.O0 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t.O2 | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t.O2 | FileCheck %s
// CHECK: cancelled 0 bad
// CHECK-NEXT: again 0 bad
// CHECK-NEXT: committed 0 bad
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 20000
static unsigned char vol[N], want[N], src[N];

static int bad(void) {
  int b = 0;
  for (int i = 0; i < N; i++) b += vol[i] != want[i];
  return b;
}

static void scribble(volatile size_t *len) {
  long *w = (long *)vol;
  w[3] = -1;                                 /* a word, then a block over it */
  memcpy(vol, src, *len);                    /* 8000 bytes */
  w[3] = 77;                                 /* a word inside the block */
  memcpy(vol + 5, src + 100, 93);            /* unaligned, odd, overlapping */
  memcpy(vol + 7001, src, 12999);            /* larger than 4 KiB, to the end */
  memset(vol + 300, 0xEE, 700);
  vol[N - 1] = 1;
}

int main(void) {
  amber_root(64); /* a heap, so that the regions are transactions */
  for (int i = 0; i < N; i++) {
    vol[i] = (unsigned char)(i * 7 + 3);
    src[i] = (unsigned char)(i * 13 + 1);
  }
  memcpy(want, vol, N);
  volatile size_t len = 8000;
  AMBER_ATOMIC {
    scribble(&len);
    amber_cancel();
  }
  printf("cancelled %d bad\n", bad());
  AMBER_ATOMIC {
    scribble(&len);
    memcpy(vol + 1000, src, 3000);
    amber_cancel();
  }
  printf("again %d bad\n", bad());
  AMBER_ATOMIC { scribble(&len); }
  long *w = (long *)want;
  w[3] = -1;
  memcpy(want, src, 8000);
  w[3] = 77;
  memcpy(want + 5, src + 100, 93);
  memcpy(want + 7001, src, 12999);
  memset(want + 300, 0xEE, 700);
  want[N - 1] = 1;
  printf("committed %d bad\n", bad());
  return 0;
}
