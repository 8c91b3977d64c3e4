// Loads outside regions see the latest committed value, never a store of
// a region that is still running (issue [1/7] part 5: romulus read main in
// place, where a writer stores before it commits).  The committed state is
// always x 0, pair {7, 7}, name "committed", big[] all 5; a writer region
// stores x 42, pair[0] 42, name "DIRTY" and big[] 9, then puts them back
// before it ends.
//
// Phase 1, no timing: each round the writer region stops after its dirty
// stores until main has read, outside regions, through every route: plain
// loads (the pass's range checks), a memcpy and strlen/strcmp in code
// compiled with amber-cc, memcpy/strlen in code amber never compiled
// (libamber's interceptors), printf's %s.  Phase 2: a writer repeats the
// region while two threads load x outside regions: every load is counted,
// and none may return 42, however the threads interleave.  Phase 3
// (argument "snapshot", romulus): each writer region sets all of big[] to
// its number k; readers copy big[] outside regions (memcpy in code compiled
// with amber-cc, and in code amber never compiled): one copy is one
// committed snapshot, all its words equal.  (Not under mvcc: it resolves
// the latest commit block by block, so a copy across blocks may mix two.)
// RUN: %clang -O1 -fno-builtin -c %S/Inputs/wrap_helper.c -o %t.helper.o
// RUN: %amber_cc -O2 %s %t.helper.o -o %t -pthread
// RUN: env AMBER_ENGINE=romulus %run %t | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t snapshot | FileCheck %s --check-prefixes=CHECK,SNAP
// RUN: %amber_cc -O0 %s %t.helper.o -o %t0 -pthread
// RUN: env AMBER_ENGINE=romulus %run %t0 | FileCheck %s
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

size_t u_strlen(const char *s);
void *u_memcpy(void *d, const void *s, size_t n);

#define ROUNDS 50
#define REGIONS 4000 /* phase 2 */
#define BIG 512

struct root {
  long x;
  long pair[2];
  char name[32];
  long big[BIG];
};
static struct root *r;
static int stored, checked, writer_done;

static void *handshake_writer(void *arg) {
  (void)arg;
  for (int k = 1; k <= ROUNDS; k++) {
    AMBER_ATOMIC {
      r->x = 42;
      r->pair[0] = 42;
      strcpy(r->name, "DIRTY");
      for (int i = 0; i < BIG; i++) r->big[i] = 9;
      __atomic_store_n(&stored, k, __ATOMIC_RELEASE);
      while (__atomic_load_n(&checked, __ATOMIC_ACQUIRE) < k) {
      }
      r->x = 0;
      r->pair[0] = 7;
      strcpy(r->name, "committed");
      for (int i = 0; i < BIG; i++) r->big[i] = 5;
    }
  }
  return NULL;
}

/* One round of reads outside regions; returns how many saw dirty data. */
static int read_all(void) {
  int bad = 0;
  for (int i = 0; i < 1000; i++) bad += *(volatile long *)&r->x != 0;
  long pair[2];
  memcpy(pair, r->pair, sizeof pair);
  bad += pair[0] != 7 || pair[1] != 7;
  bad += strlen(r->name) != 9 || strcmp(r->name, "committed") != 0;
  long big[BIG];
  u_memcpy(big, r->big, sizeof big);
  for (int i = 0; i < BIG; i++) bad += big[i] != 5;
  bad += u_strlen(r->name) != 9;
  char line[64];
  snprintf(line, sizeof line, "%s", r->name);
  bad += strcmp(line, "committed") != 0;
  return bad;
}

static long dirty2, reads2;

static void *free_writer(void *arg) {
  (void)arg;
  for (int k = 0; k < REGIONS; k++) {
    AMBER_ATOMIC { /* volatile: the compiler keeps the dead store of 42 */
      *(volatile long *)&r->x = 42;
      for (int i = 0; i < 64; i++) r->big[i] = 9;
      for (int i = 0; i < 64; i++) r->big[i] = 5;
      *(volatile long *)&r->x = 0;
    }
  }
  __atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void *free_reader(void *arg) {
  (void)arg;
  long dirty = 0, reads = 0;
  /* At least 100000 loads, and on until the writer is done. */
  while (reads < 100000 || !__atomic_load_n(&writer_done, __ATOMIC_ACQUIRE)) {
    dirty += *(volatile long *)&r->x == 42;
    reads++;
  }
  __atomic_fetch_add(&dirty2, dirty, __ATOMIC_RELAXED);
  __atomic_fetch_add(&reads2, reads, __ATOMIC_RELAXED);
  return NULL;
}

static long torn3, copies3;

static void *snap_writer(void *arg) {
  (void)arg;
  for (long k = 1; k <= REGIONS / 4; k++) {
    AMBER_ATOMIC {
      for (int i = 0; i < BIG; i++) r->big[i] = k;
    }
  }
  __atomic_store_n(&writer_done, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void *snap_reader(void *arg) {
  long big[BIG], torn = 0, copies = 0;
  while (copies < 2000 || !__atomic_load_n(&writer_done, __ATOMIC_ACQUIRE)) {
    if (arg) u_memcpy(big, r->big, sizeof big);
    else memcpy(big, r->big, sizeof big);
    for (int i = 1; i < BIG; i++)
      if (big[i] != big[0]) {
        torn++;
        break;
      }
    copies++;
  }
  __atomic_fetch_add(&torn3, torn, __ATOMIC_RELAXED);
  __atomic_fetch_add(&copies3, copies, __ATOMIC_RELAXED);
  return NULL;
}

int main(int argc, char **argv) {
  r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    r->x = 0;
    r->pair[0] = r->pair[1] = 7;
    strcpy(r->name, "committed");
    for (int i = 0; i < BIG; i++) r->big[i] = 5;
  }
  printf("before: %d dirty\n", read_all());

  pthread_t w;
  pthread_create(&w, NULL, handshake_writer, NULL);
  int bad = 0;
  for (int k = 1; k <= ROUNDS; k++) {
    while (__atomic_load_n(&stored, __ATOMIC_ACQUIRE) < k) {
    }
    bad += read_all();
    __atomic_store_n(&checked, k, __ATOMIC_RELEASE);
  }
  pthread_join(w, NULL);
  printf("phase 1: %d rounds, %d dirty\n", ROUNDS, bad);

  pthread_t t[3];
  pthread_create(&t[0], NULL, free_writer, NULL);
  pthread_create(&t[1], NULL, free_reader, NULL);
  pthread_create(&t[2], NULL, free_reader, NULL);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  printf("phase 2: %s loads, %ld saw 42\n", reads2 >= 200000 ? "enough" : "too few", dirty2);
  printf("after: %d dirty, x %ld\n", read_all(), r->x);
  if (argc > 1 && !strcmp(argv[1], "snapshot")) {
    writer_done = 0;
    pthread_create(&t[0], NULL, snap_writer, NULL);
    pthread_create(&t[1], NULL, snap_reader, NULL);
    pthread_create(&t[2], NULL, snap_reader, (void *)1);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    printf("phase 3: %s copies, %ld torn, big[0] %ld\n", copies3 >= 4000 ? "enough" : "too few", torn3, r->big[0]);
  }
  return 0;
}
// CHECK: before: 0 dirty
// CHECK-NEXT: phase 1: 50 rounds, 0 dirty
// CHECK-NEXT: phase 2: enough loads, 0 saw 42
// CHECK-NEXT: after: 0 dirty, x 0
// SNAP-NEXT: phase 3: enough copies, 0 torn, big[0] 1000
