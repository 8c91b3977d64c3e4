// Regions isolate ordinary (volatile) memory too, not only persistent memory
// (issue [1d/7], "atomic means atomic").  THREADS threads each run ITERS
// regions that, in one AMBER_ATOMIC region,
//   - increment an ordinary global (`g = g + 1`),
//   - increment a counter in an object made with plain malloc outside any
//     region before the threads start,
//   - push a node onto a volatile singly linked list (nodes from an ordinary
//     pool allocated outside regions: inside a region malloc is persistent),
// and count the regions whose view of the three disagreed (torn).  The
// totals are exact whatever the interleaving; before isolation of ordinary
// memory both engines lost increments and nodes (the global alone at
// 200,000 x 2 threads: 361,767 on mvcc, 308,125 on romulus).
// `volatile_counter THREADS ITERS g` runs only the global: the last two runs
// are the reproduction (2 threads x 200,000).
// The other runs make 100,000 regions in all (2 x 50,000 and 4 x 25,000).
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t 2 50000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=si %run %t 2 50000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=ser %run %t 2 50000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=lin %run %t 2 50000 | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t 2 50000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t 4 25000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=si %run %t 4 25000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=ser %run %t 4 25000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=lin %run %t 4 25000 | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t 4 25000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t 2 200000 g | FileCheck %s --check-prefix=ONLYG
// RUN: env AMBER_ENGINE=romulus %run %t 2 200000 g | FileCheck %s --check-prefix=ONLYG
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct counter { long pad[3]; long n; }; /* plain malloc, outside regions */
struct vnode { long id; struct vnode *next; };

long g;                    /* ordinary global */
static struct counter *obj;
static struct vnode *head; /* volatile list */
static long len;
static struct vnode *pool; /* ordinary memory: THREADS * ITERS nodes */
static long iters;
static int only_g;
static pthread_barrier_t start;

static void *worker(void *arg) {
  long tid = (long)arg, torn = 0, warm = 0;
  /* The thread's first region sets up its transaction state (a TLog to map):
   * before the barrier, so that every thread's loop starts together. */
  AMBER_ATOMIC { warm = tid; }
  pthread_barrier_wait(&start);
  for (long i = 0; i < iters; i++) {
    if (only_g) {
      AMBER_ATOMIC { g = g + 1; }
      continue;
    }
    struct vnode *n = &pool[tid * iters + i];
    n->id = tid * iters + i; /* outside the region: this thread's own node */
    long bad = 0;
    AMBER_ATOMIC {
      bad = g != obj->n || g != len;
      g = g + 1;
      obj->n = obj->n + 1;
      n->next = head;
      head = n;
      len = len + 1;
    }
    torn += bad;
  }
  return (void *)(torn + (warm != tid));
}

int main(int argc, char **argv) {
  long nthreads = argc > 1 ? atol(argv[1]) : 2;
  iters = argc > 2 ? atol(argv[2]) : 50000;
  only_g = argc > 3 && !strcmp(argv[3], "g");
  if (nthreads < 1 || nthreads > 64 || iters < 1) {
    fprintf(stderr, "usage: %s THREADS ITERS [g]\n", argv[0]);
    return 2;
  }
  long total = nthreads * iters;
  obj = calloc(1, sizeof *obj);                 /* volatile: outside regions */
  pool = calloc(total, sizeof *pool);
  char *seen = calloc(total, 1);
  if (!obj || !pool || !seen)
    return 2;
  pthread_t t[64];
  pthread_barrier_init(&start, NULL, nthreads);
  for (long i = 0; i < nthreads; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  long torn = 0;
  for (long i = 0; i < nthreads; i++) {
    void *res;
    pthread_join(t[i], &res);
    torn += (long)res;
  }
  if (only_g) {
    printf("g %ld expected %ld\n", g, total);
    return 0;
  }
  long walked = 0, dup = 0, bad = 0, missing = 0;
  for (struct vnode *n = head; n && walked <= total; n = n->next, walked++) {
    if (n->id < 0 || n->id >= total) { bad++; continue; }
    dup += seen[n->id]++ != 0;
  }
  for (long i = 0; i < total; i++)
    missing += !seen[i];
  printf("g %ld obj %ld len %ld expected %ld\n", g, obj->n, len, total);
  printf("walked %ld dup %ld missing %ld bad %ld torn %ld\n", walked, dup, missing, bad, torn);
  return 0;
}
// CHECK: g 100000 obj 100000 len 100000 expected 100000
// CHECK-NEXT: walked 100000 dup 0 missing 0 bad 0 torn 0
// ONLYG: g 400000 expected 400000
