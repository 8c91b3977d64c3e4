// mvcc engine: write skew (two doctors on call).  Each doctor reads both
// on-call flags and, when both are on call, goes off call.  A barrier inside
// the transaction makes both read before either writes, in every round.
// Under snapshot isolation the anomaly (nobody on call) happens every round;
// under serializable and linearizable it never does.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t 1 | FileCheck %s --check-prefix=SI
// RUN: env AMBER_ENGINE=mvcc %run %t 2 | FileCheck %s --check-prefix=SER
// RUN: env AMBER_ENGINE=mvcc %run %t 3 | FileCheck %s --check-prefix=SER
// RUN: env AMBER_ENGINE=mvcc %run %t 0 | FileCheck %s --check-prefix=SER
// AMBER_ISOLATION sets the level of regions that name none (argument 0).
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=si %run %t 0 | FileCheck %s --check-prefix=SI
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=lin %run %t 0 | FileCheck %s --check-prefix=SER
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=si %run %t 2 | FileCheck %s --check-prefix=SER
// RUN: not env AMBER_ENGINE=mvcc AMBER_ISOLATION=rc %run %t 0 2>&1 | FileCheck %s --check-prefix=BADISO
// BADISO: amber: error: AMBER_ISOLATION=rc is not an isolation level; use si, ser (the default) or lin
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 20

/* The two flags live in different 64-byte blocks: no write-write conflict. */
struct root { long alice; long pad1[15]; long bob; long pad2[15]; };
static struct root *r;
static int iso;
/* The doctors' handshake (atomics): it must cross their transactions, so it
 * is AMBER_UNISOLATED (a region's ordinary stores are otherwise invisible to
 * other regions until it commits: docs/guide.md 2.6). */
AMBER_UNISOLATED static int arrived[2], finished[2];

static void *doctor(void *arg) {
  long id = (long)arg;
  AMBER_ATOMIC_ISO(iso) {
    long on_call = r->alice + r->bob;
    __atomic_store_n(&arrived[id], 1, __ATOMIC_RELEASE);
    /* Wait until the other doctor has read too (or is done). */
    while (!__atomic_load_n(&arrived[1 - id], __ATOMIC_ACQUIRE) && !__atomic_load_n(&finished[1 - id], __ATOMIC_ACQUIRE)) {
    }
    if (on_call >= 2) {
      if (id == 0) r->alice = 0;
      else r->bob = 0;
    }
  }
  __atomic_store_n(&finished[id], 1, __ATOMIC_RELEASE);
  return NULL;
}

int main(int argc, char **argv) {
  iso = argc > 1 ? atoi(argv[1]) : 0;
  r = amber_root(sizeof *r);
  int anomalies = 0, one_left = 0;
  for (int round = 0; round < ROUNDS; round++) {
    AMBER_ATOMIC {
      r->alice = 1;
      r->bob = 1;
    }
    arrived[0] = arrived[1] = finished[0] = finished[1] = 0;
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, doctor, (void *)i);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    long left = 0;
    AMBER_ATOMIC { left = r->alice + r->bob; }
    anomalies += left == 0;
    one_left += left == 1;
  }
  printf("rounds %d anomalies %d one-left %d\n", ROUNDS, anomalies, one_left);
  return 0;
}
// SI: rounds 20 anomalies 20 one-left 0
// SER: rounds 20 anomalies 0 one-left 20
