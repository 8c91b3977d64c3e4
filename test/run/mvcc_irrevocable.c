// mvcc engine, irrevocable regions (docs/engines/mvcc.md, "Irrevocable
// regions"): a region that calls code amber never instrumented runs alone,
// on an up-to-date master, writing it in place.  That code (sum_longs, built
// by plain clang) reads the heap through the canonical window (readable with
// AMBER_STRICT=0), so it must see every earlier commit of every thread and
// this region's own writes made before the call.  Writer threads move
// amounts between accounts (the total stays START * N) while the main
// thread, in irrevocable regions, bumps one account, lets sum_longs add them
// up, compares with its own instrumented sum and undoes the bump.  The pass
// cannot tell that sum_longs, defined in another object, is not instrumented,
// so the region restarts alone at the call the first time and starts alone
// from then on; likewise one that reaches it through another module's
// function (call_via calls a function pointer): one "irrevocable" abort
// each.  (test/run/irrevocable.c: snprintf, known to the pass, starts alone.)
// RUN: %clang -O1 -c %S/Inputs/sum_longs.c -o %t.sum.o
// RUN: %amber_cc -O1 -c %S/Inputs/call_via.c -o %t.via.o
// RUN: %amber_cc -O2 %s %t.sum.o %t.via.o -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc AMBER_STRICT=0 AMBER_STATS_FILE=%t.json %run %t | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.json
// RUN: env AMBER_ENGINE=mvcc AMBER_STRICT=0 AMBER_ISOLATION=si %run %t | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_STRICT=0 AMBER_MVCC_ASSERT=1 %run %t | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_STRICT=0 %rerun %t | FileCheck %s --check-prefix=AGAIN
// CHECK: audits 200 mismatches 0
// CHECK: indirect 50 mismatches 0
// CHECK: total ok
// STATS: "aborts_irrevocable": 2
// STATS-SAME: "irrevocable_txns": 250
// AGAIN: audits 200 mismatches 0
// AGAIN: indirect 50 mismatches 0
// AGAIN: total ok
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 16
#define WRITERS 2
#define ITERS 2000
#define START 100

long sum_longs(const long *p, int n);
long call_via(long (*f)(const long *, int), const long *p, int n);

struct root { long init; long acct[N]; };
static struct root *r;

static void *writer(void *arg) {
  unsigned seed = (unsigned)(long)arg * 7919u + 1;
  for (int i = 0; i < ITERS; i++) {
    int a = rand_r(&seed) % N, b = rand_r(&seed) % N;
    long amt = rand_r(&seed) % 10;
    AMBER_ATOMIC {
      r->acct[a] -= amt;
      r->acct[b] += amt;
    }
  }
  return NULL;
}

int main(void) {
  r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    if (!r->init) {
      for (int i = 0; i < N; i++) r->acct[i] = START;
      r->init = 1;
    }
  }
  pthread_t th[WRITERS];
  for (long w = 0; w < WRITERS; w++) pthread_create(&th[w], NULL, writer, (void *)w);
  int mismatches = 0, audits = 0;
  for (int k = 0; k < 200; k++) {
    long seen = 0, mine = 0;
    AMBER_ATOMIC {
      r->acct[k % N] += 1000; /* this region's own write, before the call */
      seen = sum_longs(r->acct, N);
      for (int i = 0; i < N; i++) mine += r->acct[i];
      r->acct[k % N] -= 1000;
    }
    audits++;
    if (seen != mine || seen != START * N + 1000) {
      mismatches++;
      fprintf(stderr, "audit %d: uninstrumented sum %ld, instrumented %ld, expected %ld\n", k, seen, mine, (long)START * N + 1000);
    }
  }
  printf("audits %d mismatches %d\n", audits, mismatches);
  int indirect = 0;
  mismatches = 0;
  for (int k = 0; k < 50; k++) {
    long seen = 0, mine = 0;
    AMBER_ATOMIC {
      r->acct[k % N] += 1000;
      seen = call_via(sum_longs, r->acct, N);
      for (int i = 0; i < N; i++) mine += r->acct[i];
      r->acct[k % N] -= 1000;
    }
    indirect++;
    if (seen != mine || seen != START * N + 1000) mismatches++;
  }
  printf("indirect %d mismatches %d\n", indirect, mismatches);
  for (int w = 0; w < WRITERS; w++) pthread_join(th[w], NULL);
  long total = 0;
  AMBER_ATOMIC {
    total = 0;
    for (int i = 0; i < N; i++) total += r->acct[i];
  }
  printf("total %s\n", total == START * N ? "ok" : "WRONG");
  return 0;
}
