// qsort, qsort_r and bsearch inside regions (issue 22): the pass leaves the
// calls alone and libamber's interceptor runs them in the region's
// transaction (wrappers/sort.c), on ordinary memory (malloc'd outside
// regions) as on persistent memory, so the region stays revocable:
//  - "basic": a region sorts an ordinary array with qsort and qsort_r (its
//    comparator reads an ordinary table, through the comparator's clone) and
//    finds elements with bsearch; a persistent array sorts too; no
//    transaction is irrevocable (mvcc's irrevocable_txns is 0);
//  - amber_retry after qsort (an error after an irrevocable call) re-runs
//    the region with the array as it was; amber_cancel after qsort leaves
//    it as it was;
//  - an array of over 4 KiB (the wrapper's copy on the heap, not the stack);
//  - "threads": two threads flip one ordinary array between descending
//    (a store loop) and ascending (qsort) order in regions while a third
//    reads it in regions: every view is all ascending or all descending.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.mvcc.json %run %t basic | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.mvcc.json
// RUN: env AMBER_ENGINE=romulus %run %t basic | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=si %run %t basic | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_STATS_FILE=%t.thr.json %run %t threads | FileCheck %s --check-prefix=THREADS
// RUN: FileCheck %s --check-prefix=STATS < %t.thr.json
// RUN: env AMBER_ENGINE=romulus %run %t threads | FileCheck %s --check-prefix=THREADS
// CHECK: qsort ordinary: sorted 1
// CHECK-NEXT: qsort_r ordinary: sorted down 1
// CHECK-NEXT: bsearch ordinary: found 1 missing 1
// CHECK-NEXT: qsort persistent: sorted 1
// CHECK-NEXT: retry: runs 2 unsorted at start of each run 1 sorted after 1
// CHECK-NEXT: cancel: unchanged 1
// CHECK-NEXT: big: sorted 1
// STATS: "irrevocable_txns": 0
// THREADS: threads: views {{[1-9][0-9]*}} torn 0 final ok
#define _GNU_SOURCE /* qsort_r */
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64
#define BIG 1024 /* longs: 8 KiB */

/* The sort key of value v: an ordinary table the comparator reads. */
static long weight[N];

static int by_weight(const void *a, const void *b) {
  long x = weight[*(const long *)a], y = weight[*(const long *)b];
  return (x > y) - (x < y);
}
static int by_value_r(const void *a, const void *b, void *dir) {
  long x = *(const long *)a, y = *(const long *)b;
  return *(const int *)dir * ((x > y) - (x < y));
}
static int by_value(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static int ascending(const long *v, long n) {
  for (long i = 0; i < n; i++)
    if (v[i] != i) return 0;
  return 1;
}
static int descending(const long *v, long n) {
  for (long i = 0; i < n; i++)
    if (v[i] != n - 1 - i) return 0;
  return 1;
}
static void shuffle(long *v, long n) {
  for (long i = 0; i < n; i++) v[i] = (i * 37 + 11) % n; /* n is a power of two: a permutation */
}

struct root { long arr[N]; };

static long *shared;
static AMBER_UNISOLATED long views, torn;
static AMBER_UNISOLATED long runs, unsorted_starts;

static void *flipper(void *arg) {
  (void)arg;
  for (int k = 0; k < 300; k++) {
    AMBER_ATOMIC {
      if (shared[0] == 0) {
        for (long i = 0; i < N; i++) shared[i] = N - 1 - i;
      } else {
        qsort(shared, N, sizeof *shared, by_value);
      }
    }
  }
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  for (int k = 0; k < 600; k++) {
    long copy[N];
    AMBER_ATOMIC {
      for (long i = 0; i < N; i++) copy[i] = shared[i];
    }
    views++;
    if (!ascending(copy, N) && !descending(copy, N)) torn++;
  }
  return NULL;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "basic";
  struct root *r = amber_root(sizeof *r);
  if (!strcmp(mode, "threads")) {
    shared = malloc(N * sizeof *shared);
    for (long i = 0; i < N; i++) shared[i] = N - 1 - i;
    pthread_t a, b, c;
    pthread_create(&a, NULL, flipper, NULL);
    pthread_create(&b, NULL, flipper, NULL);
    pthread_create(&c, NULL, reader, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_join(c, NULL);
    printf("threads: views %ld torn %ld final %s\n", views, torn,
           ascending(shared, N) || descending(shared, N) ? "ok" : "torn");
    return 0;
  }

  for (long i = 0; i < N; i++) weight[i] = 3 * i + 1;
  long *v = malloc(N * sizeof *v); /* ordinary, made outside regions */
  shuffle(v, N);
  AMBER_ATOMIC { qsort(v, N, sizeof *v, by_weight); }
  printf("qsort ordinary: sorted %d\n", ascending(v, N));

  int down = -1;
  AMBER_ATOMIC { qsort_r(v, N, sizeof *v, by_value_r, &down); }
  printf("qsort_r ordinary: sorted down %d\n", descending(v, N));

  for (long i = 0; i < N; i++) v[i] = 2 * i; /* even values, ascending */
  long *hit = NULL, *miss = v;
  AMBER_ATOMIC {
    long k = 42, absent = 43;
    hit = bsearch(&k, v, N, sizeof *v, by_value);
    miss = bsearch(&absent, v, N, sizeof *v, by_value);
  }
  printf("bsearch ordinary: found %d missing %d\n", hit == &v[21], miss == NULL);

  shuffle(r->arr, N);
  AMBER_ATOMIC { qsort(r->arr, N, sizeof r->arr[0], by_value); }
  printf("qsort persistent: sorted %d\n", ascending(r->arr, N));

  shuffle(v, N);
  AMBER_ATOMIC {
    runs++;
    if (!ascending(v, N) && !descending(v, N)) unsorted_starts++;
    qsort(v, N, sizeof *v, by_value);
    if (runs == 1) amber_retry();
  }
  printf("retry: runs %ld unsorted at start of each run %d sorted after %d\n", runs, unsorted_starts == runs,
         ascending(v, N));

  shuffle(v, N);
  long before[N];
  memcpy(before, v, sizeof before);
  AMBER_ATOMIC {
    qsort(v, N, sizeof *v, by_value);
    amber_cancel();
  }
  printf("cancel: unchanged %d\n", !memcmp(before, v, sizeof before));

  long *big = malloc(BIG * sizeof *big);
  shuffle(big, BIG);
  AMBER_ATOMIC { qsort(big, BIG, sizeof *big, by_value); }
  printf("big: sorted %d\n", ascending(big, BIG));
  free(big);
  free(v);
  return 0;
}
