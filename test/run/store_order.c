// Pass ABI 7: inside a region a plain store to ordinary memory is a relaxed
// store and an atomic store keeps its own order (docs/pass.md, "Stores and
// memory order").  A writer thread publishes, from inside regions, data it
// stored plainly, with a release or seq_cst __atomic_store_n of a flag (and
// of a pointer: __amber_atomic_storep); main, outside regions, waits for the
// flag with an acquire load and reads the data plainly.  That read is
// race-free only if the flag's store kept its release order: under TSan
// (test/tsan, quick.txt), with the order lost (the flag stored relaxed, as
// the program's plain stores are) main's reads race with the writer's stores
// and TSan reports it whatever the timing (it decides by happens-before;
// checked by making __amber_atomic_storeN relaxed).  Both engines: mvcc takes
// the words in its lock table, a romulus region restarts as the writer at
// its first store.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t | FileCheck %s
// CHECK: published 64 rounds, box 42
#include <amber.h>
#include <pthread.h>
#include <stdio.h>

#define ROUNDS 64
static long data[ROUNDS];
static int flag;
struct box {
  long v;
};
static struct box box;
static struct box *pub;

static void *writer(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    AMBER_ATOMIC {
      data[i] = i + 1;
      if (i & 1) __atomic_store_n(&flag, i + 1, __ATOMIC_SEQ_CST);
      else __atomic_store_n(&flag, i + 1, __ATOMIC_RELEASE);
    }
  }
  AMBER_ATOMIC {
    box.v = 42;
    __atomic_store_n(&pub, &box, __ATOMIC_RELEASE);
  }
  return NULL;
}

int main(void) {
  pthread_t th;
  if (pthread_create(&th, NULL, writer, NULL)) return 1;
  for (int i = 0; i < ROUNDS; i++) {
    while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) < i + 1) {
    }
    if (data[i] != i + 1) {
      printf("round %d: data %ld after its flag\n", i, data[i]);
      return 1;
    }
  }
  struct box *b;
  while (!(b = __atomic_load_n(&pub, __ATOMIC_ACQUIRE))) {
  }
  long v = b->v;
  pthread_join(th, NULL);
  printf("published %d rounds, box %ld\n", ROUNDS, v);
  return v == 42 ? 0 : 1;
}
