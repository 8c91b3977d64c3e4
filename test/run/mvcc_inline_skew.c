// mvcc engine: write skew over blocks the pass's inline loads read from the
// master (docs/engines/mvcc.md, "Inline loads").  A first process sets
// ROUNDS pairs of on-call flags, each flag in a block of its own, and ends;
// a second one runs one round per pair with two doctors (as in
// mvcc_write_skew.c: each reads both flags and, when both are on call, goes
// off call, both reading before either writes).  No block of a pair was
// written since the heap was opened, so both doctors read both flags
// inline, from the master: under SER and LIN the inline path must record
// them in the read set, or validation misses the skew.  Under SI the
// anomaly happens in every round (the values read inline are right).
// "ord" does the same over ordinary memory (a static array set before any
// region: its lock-table words are still at version 0, so the flags are
// read inline, in place, and recorded in the ordinary read set).
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t set
// RUN: env AMBER_ENGINE=mvcc %rerun %t 2 | FileCheck %s --check-prefix=SER
// RUN: env AMBER_ENGINE=mvcc %rerun %t set
// RUN: env AMBER_ENGINE=mvcc %rerun %t 3 | FileCheck %s --check-prefix=SER
// RUN: env AMBER_ENGINE=mvcc %rerun %t set
// RUN: env AMBER_ENGINE=mvcc %rerun %t 0 | FileCheck %s --check-prefix=SER
// RUN: env AMBER_ENGINE=mvcc %rerun %t set
// RUN: env AMBER_ENGINE=mvcc %rerun %t 1 | FileCheck %s --check-prefix=SI
// RUN: env AMBER_ENGINE=mvcc %run %t ord 2 | FileCheck %s --check-prefix=SER
// RUN: env AMBER_ENGINE=mvcc %run %t ord 3 | FileCheck %s --check-prefix=SER
// RUN: env AMBER_ENGINE=mvcc %run %t ord 1 | FileCheck %s --check-prefix=SI
// SER: rounds 20 anomalies 0 one-left 20
// SI: rounds 20 anomalies 20 one-left 0
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 20

/* 128 bytes per flag: each in a 64-byte block of its own. */
struct root { long flag[ROUNDS][2][16]; };
static struct root *r;
static long oflag[ROUNDS][2][2]; /* ordinary memory: one 8-byte lock-table word each */
static int iso, round_, ordinary;
AMBER_UNISOLATED static int arrived[2], finished[2];

static void *doctor(void *arg) {
  long id = (long)arg;
  long *mine = ordinary ? &oflag[round_][id][0] : &r->flag[round_][id][0];
  const long *a = ordinary ? &oflag[round_][0][0] : &r->flag[round_][0][0];
  const long *b = ordinary ? &oflag[round_][1][0] : &r->flag[round_][1][0];
  AMBER_ATOMIC_ISO(iso) {
    long on_call = *a + *b;
    __atomic_store_n(&arrived[id], 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&arrived[1 - id], __ATOMIC_ACQUIRE) && !__atomic_load_n(&finished[1 - id], __ATOMIC_ACQUIRE)) {
    }
    if (on_call >= 2) *mine = 0;
  }
  __atomic_store_n(&finished[id], 1, __ATOMIC_RELEASE);
  return NULL;
}

int main(int argc, char **argv) {
  r = amber_root(sizeof *r);
  if (argc > 1 && !strcmp(argv[1], "set")) {
    AMBER_ATOMIC {
      for (int k = 0; k < ROUNDS; k++) r->flag[k][0][0] = r->flag[k][1][0] = 1;
    }
    return 0;
  }
  if (argc > 2 && !strcmp(argv[1], "ord")) {
    ordinary = 1;
    argv++;
    for (int k = 0; k < ROUNDS; k++) oflag[k][0][0] = oflag[k][1][0] = 1;
  }
  iso = argc > 1 ? atoi(argv[1]) : 0;
  int anomalies = 0, one_left = 0;
  for (round_ = 0; round_ < ROUNDS; round_++) {
    arrived[0] = arrived[1] = finished[0] = finished[1] = 0;
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, doctor, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    long left = 0;
    AMBER_ATOMIC {
      left = ordinary ? oflag[round_][0][0] + oflag[round_][1][0] : r->flag[round_][0][0] + r->flag[round_][1][0];
    }
    anomalies += left == 0;
    one_left += left == 1;
  }
  printf("rounds %d anomalies %d one-left %d\n", ROUNDS, anomalies, one_left);
  return 0;
}
