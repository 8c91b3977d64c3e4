// Loads in regions read in place under romulus (the pass's inline path,
// amber_interface.h "Inline loads inside regions"): a reader never sees a
// writer's uncommitted stores nor a stale snapshot.  One thread's regions
// write two persistent words (apart: other blocks, other cache lines) and
// two ordinary ones, always to the same value, with a run of other stores
// between; another thread's regions read them (directly, through a clone,
// and in a nested region) and check that each pair agrees and that values
// never go back.  Both engines; the same check on mvcc.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=romulus %run %t | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t | FileCheck %s
// CHECK: torn 0 backwards 0 last 20000
#include <amber.h>
#include <pthread.h>
#include <stdio.h>

#define ITERS 20000
#define PAD 64

struct root {
  long a;
  long pad[PAD];
  long b;
};
static struct root *r;
static struct { long a, pad[PAD], b; } vol; /* ordinary memory, written in regions only */
static int done;

static void *writer(void *arg) {
  (void)arg;
  for (long i = 1; i <= ITERS; i++) {
    AMBER_ATOMIC {
      r->a = i;
      vol.a = i;
      for (int k = 0; k < PAD; k++) {
        r->pad[k] = i + k;
        vol.pad[k] = i + k;
      }
      r->b = i;
      vol.b = i;
    }
  }
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* A clone reads here (called inside regions only). */
__attribute__((noinline)) static long pair(const long *x, const long *y, long *other) {
  *other = *y;
  return *x;
}

int main(void) {
  r = amber_root(sizeof *r);
  AMBER_ATOMIC { r->a = r->b = 0; }
  pthread_t w;
  pthread_create(&w, NULL, writer, NULL);
  long torn = 0, backwards = 0, last = 0;
  int finished = 0;
  while (!finished) {
    finished = __atomic_load_n(&done, __ATOMIC_ACQUIRE);
    long a, b, va, vb, ca, cb, na = 0, nb = 0;
    AMBER_ATOMIC {
      a = r->a;
      va = vol.a;
      ca = pair(&r->a, &r->b, &cb);
      vb = vol.b;
      b = r->b;
      AMBER_ATOMIC {
        na = r->a;
        nb = vol.b;
      }
    }
    if (a != b || va != vb || ca != cb || a != va || ca != a || na != a || nb != a) torn++;
    if (a < last) backwards++;
    last = a;
  }
  pthread_join(w, NULL);
  printf("torn %ld backwards %ld last %ld\n", torn, backwards, last);
  return 0;
}
