// mvcc engine: a bank of N accounts, three threads transferring random
// (seeded) amounts, and a concurrent read-only auditor that must always see
// the same total.  Run under each isolation level, mixed levels, a 16-byte
// block size, and the default engine.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t 1 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t 2 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t 3 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t 0 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_BLOCK=16 %run %t 2 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %rerun %t 2 | FileCheck %s --check-prefix=AGAIN
// RUN: %run %t 2 | FileCheck %s
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 32
#define WRITERS 3
#define ITERS 1500
#define START 1000

struct root { long init; long acct[N]; long transfers; };
static struct root *r;
static int iso_arg;
static volatile int writers_done;

static int iso_of(long id) { return iso_arg ? iso_arg : (int)(id % 3) + 1; /* 0: mixed levels */ }

static void *writer(void *arg) {
  long id = (long)arg;
  unsigned seed = 12345u + (unsigned)id;
  int iso = iso_of(id);
  for (int i = 0; i < ITERS; i++) {
    int from = rand_r(&seed) % N, to = rand_r(&seed) % N;
    long amount = rand_r(&seed) % 200;
    if (from == to) continue;
    AMBER_ATOMIC_ISO(iso) {
      if (r->acct[from] >= amount) {
        r->acct[from] -= amount;
        r->acct[to] += amount;
        r->transfers++;
      }
    }
  }
  __atomic_fetch_add(&writers_done, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

static long audits, bad;

static void *auditor(void *arg) {
  int iso = iso_of((long)arg);
  while (__atomic_load_n(&writers_done, __ATOMIC_SEQ_CST) < WRITERS || audits < 50) {
    long sum = 0;
    AMBER_ATOMIC_ISO(iso) {
      sum = 0;
      for (int i = 0; i < N; i++) sum += r->acct[i];
    }
    audits++;
    if (sum != N * START) bad++;
  }
  return NULL;
}

int main(int argc, char **argv) {
  iso_arg = argc > 1 ? atoi(argv[1]) : 0;
  r = amber_root(sizeof *r);
  int first = !r->init;
  AMBER_ATOMIC {
    if (!r->init) {
      for (int i = 0; i < N; i++) r->acct[i] = START;
      r->init = 1;
    }
  }
  pthread_t w[WRITERS], a;
  pthread_create(&a, NULL, auditor, (void *)(long)WRITERS);
  for (long i = 0; i < WRITERS; i++) pthread_create(&w[i], NULL, writer, (void *)i);
  for (int i = 0; i < WRITERS; i++) pthread_join(w[i], NULL);
  pthread_join(a, NULL);
  long sum = 0;
  for (int i = 0; i < N; i++) sum += r->acct[i];
  printf("%s total %ld audits>=50 %d bad %ld transfers>0 %d\n", first ? "first" : "again", sum, audits >= 50, bad,
         r->transfers > 0);
  return 0;
}
// CHECK: first total 32000 audits>=50 1 bad 0 transfers>0 1
// AGAIN: again total 32000 audits>=50 1 bad 0 transfers>0 1
