// mvcc engine: the TLog fills up and the program keeps going.  With a tiny
// TLog (128 slots), a write-heavy loop writes far more versions than fit, and
// a second thread keeps read-only transactions running so reclamation must
// wait for grace periods: writers reclaim, or abort with reason capacity and
// retry, never deadlock.  A transaction larger than the whole TLog restarts
// alone, in place (docs/engines/mvcc.md, "Large transactions") and commits.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc AMBER_MVCC_TLOG=16K %run %t | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_MVCC_TLOG=16K AMBER_STATS_FILE=%t.json %run %t big 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: env AMBER_MVCC_TLOG=16K %rerun %t count | FileCheck %s --check-prefix=BIG
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS 96
struct root { long v[BLOCKS * 8 - 1]; long *big; };
static struct root *r;
static int done; /* atomic: the writer tells the reader to stop */

static void *reader(void *arg) {
  (void)arg;
  long reads = 0;
  while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE) || reads < 10) {
    long s = 0;
    AMBER_ATOMIC_ISO(AMBER_SI) {
      s = 0;
      for (int i = 0; i < BLOCKS; i++) s += r->v[i * 8];
    }
    reads += s >= 0;
  }
  return NULL;
}

int main(int argc, char **argv) {
  r = amber_root(sizeof *r);
  if (argc > 1 && !strcmp(argv[1], "big")) {
    AMBER_ATOMIC {
      long *big = malloc(256 * 64);
      for (int i = 0; i < 256; i++) big[i * 8] = 1;
      r->big = big;
    }
  }
  if (argc > 1) {
    long n = 0;
    for (int i = 0; i < 256; i++) n += r->big[i * 8];
    printf("big %ld\n", n);
    return 0;
  }
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  for (int round = 0; round < 200; round++)
    for (int i = 0; i < BLOCKS; i += 16) /* 6 transactions of 16 blocks per round */
      AMBER_ATOMIC {
        for (int j = i; j < i + 16; j++) r->v[j * 8] += 1;
      }
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  pthread_join(t, NULL);
  long s = 0;
  for (int i = 0; i < BLOCKS; i++) s += r->v[i * 8];
  printf("sum %ld\n", s);
  return 0;
}
// CHECK: sum 19200
// BIG: big 256
// BIG-NOT: amber: error
// JSON: "large_txns": 1,
