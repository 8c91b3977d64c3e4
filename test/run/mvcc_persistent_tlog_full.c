// mvcc engine (issue [1/7] part 2): regions that fill their thread's TLog
// and OLog ring inside the transaction, on 2 and 4 threads, finish.  An
// AMBER_PERSISTENT region cannot abort, so it waits inside its transaction
// for reclamation; that wait used to include the waiting transaction
// itself (a grace period waited for its txseq, the horizon for its
// local-ts) and two such regions hung for ever.  Each region writes 100
// blocks of its thread's own; with "shared" each region first writes its
// thread's word of one block all threads share (false sharing), so regions
// also wait for each other's block locks while the holder waits for
// reclamation.  AMBER_ATOMIC runs the same work as transactions (they abort
// with reason capacity instead).  The timeout only catches a hang: each run
// takes well under a second.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_MVCC_TLOG=128K timeout 120 %run %t 2 persistent | FileCheck %s --check-prefix=T2
// RUN: env AMBER_MVCC_TLOG=128K timeout 120 %run %t 4 persistent | FileCheck %s --check-prefix=T4
// RUN: env AMBER_MVCC_TLOG=128K timeout 120 %run %t 2 atomic | FileCheck %s --check-prefix=T2
// RUN: env AMBER_MVCC_TLOG=128K timeout 120 %run %t 4 atomic | FileCheck %s --check-prefix=T4
// RUN: env AMBER_MVCC_TLOG=128K timeout 120 %run %t 2 persistent shared | FileCheck %s --check-prefix=S2
// RUN: env AMBER_MVCC_TLOG=128K timeout 120 %run %t 4 persistent shared | FileCheck %s --check-prefix=S4
// RUN: env AMBER_MVCC_TLOG=128K timeout 120 %run %t 4 atomic shared | FileCheck %s --check-prefix=S4
// The default TLog (8 MiB): the OLog ring (1 MiB) fills first.
// RUN: timeout 120 %run %t 2 persistent | FileCheck %s --check-prefix=T2
// RUN: timeout 120 %run %t 4 persistent | FileCheck %s --check-prefix=T4
// RUN: timeout 120 %run %t 4 atomic | FileCheck %s --check-prefix=T4
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 4
#define BLOCKS 100
#define ROUNDS 1500

struct root {
  long shared[8];             /* one block: word i is thread i's */
  long v[MAXT][BLOCKS][8];    /* 100 blocks per thread */
};
static struct root *r;
static int persistent, shared;

static void *worker(void *arg) {
  long id = (long)arg;
  for (int k = 0; k < ROUNDS; k++) {
    if (persistent)
      AMBER_PERSISTENT {
        if (shared) r->shared[id] += 1;
        for (int i = 0; i < BLOCKS; i++) r->v[id][i][0] += 1;
      }
    else
      AMBER_ATOMIC {
        if (shared) r->shared[id] += 1;
        for (int i = 0; i < BLOCKS; i++) r->v[id][i][0] += 1;
      }
  }
  return NULL;
}

int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  persistent = !strcmp(argv[2], "persistent");
  shared = argc > 3 && !strcmp(argv[3], "shared");
  r = amber_root(sizeof *r);
  pthread_t t[MAXT];
  for (long i = 0; i < n; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
  long sum = 0, sh = 0;
  for (int i = 0; i < n; i++) {
    sh += r->shared[i];
    for (int j = 0; j < BLOCKS; j++) sum += r->v[i][j][0];
  }
  printf("threads %d sum %ld shared %ld\n", n, sum, sh);
  return 0;
}
// T2: threads 2 sum 300000 shared 0
// T4: threads 4 sum 600000 shared 0
// S2: threads 2 sum 300000 shared 3000
// S4: threads 4 sum 600000 shared 6000
