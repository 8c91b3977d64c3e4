// A region's vector load of ordinary memory (a vectorized loop's 64-byte
// <8 x i64>) is read inline under mvcc, one lock-table word a word (the
// pass's amber.load.ordwords path, issue [3/7] item 2), and still sees one
// snapshot: a writer thread stores i to all 8 words of an aligned ordinary
// array in one region; reader threads sum the 8 words (one vector load)
// and read the first word again in the same region: the sum is always 8
// times that word, and it never goes back.  The readers' regions commit
// read-only, so after their first run they read without the read log (the
// inline path); every isolation level.
// `mvcc_vector_reads READERS WRITES`.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t 2 20000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=si %run %t 2 20000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=lin %run %t 2 20000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_CLOCK=logical %run %t 2 20000 | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t 2 20000 | FileCheck %s
// CHECK: torn 0 backwards 0 final 20000
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define W 8

_Alignas(64) long a[W]; /* ordinary memory, written in regions only */
/* Read through this pointer: the compiler neither splits a[] nor folds it into sum(). */
static long *volatile ap = a;
static long writes;
static int done;
static pthread_barrier_t start;

/* noinline: one 64-byte vector load through a pointer (as bench/region_cost). */
__attribute__((noinline)) static long sum(const long *p) {
  long s = 0;
  for (int k = 0; k < W; k++) s += p[k];
  return s;
}

static void *writer(void *arg) {
  (void)arg;
  pthread_barrier_wait(&start);
  for (long i = 1; i <= writes; i++) {
    AMBER_ATOMIC {
      for (int k = 0; k < W; k++) a[k] = i;
    }
  }
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  return NULL;
}

struct seen { long torn, backwards; };

static void *reader(void *arg) {
  struct seen *s = arg;
  long last = 0;
  pthread_barrier_wait(&start);
  do {
    long total = 0, first = 0;
    AMBER_ATOMIC {
      total = sum(ap);
      first = a[0];
    }
    s->torn += total != W * first;
    s->backwards += first < last;
    last = first;
  } while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE));
  return NULL;
}

int main(int argc, char **argv) {
  long nreaders = argc > 1 ? atol(argv[1]) : 2;
  writes = argc > 2 ? atol(argv[2]) : 20000;
  if (nreaders < 1 || nreaders > 16 || writes < 1) {
    fprintf(stderr, "usage: %s READERS WRITES\n", argv[0]);
    return 2;
  }
  struct seen s[16] = {{0}};
  pthread_t w, t[16];
  pthread_barrier_init(&start, NULL, nreaders + 1);
  pthread_create(&w, NULL, writer, NULL);
  for (long i = 0; i < nreaders; i++) pthread_create(&t[i], NULL, reader, &s[i]);
  pthread_join(w, NULL);
  long torn = 0, backwards = 0;
  for (long i = 0; i < nreaders; i++) {
    pthread_join(t[i], NULL);
    torn += s[i].torn;
    backwards += s[i].backwards;
  }
  long final = 0;
  AMBER_ATOMIC { final = sum(ap) / W; }
  printf("torn %ld backwards %ld final %ld\n", torn, backwards, final);
  return 0;
}
