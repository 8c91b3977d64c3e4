// Stores outside regions gather into the thread's batch (tx/batch.c,
// docs/guide.md section 4): the thread reads its own batched stores
// (outside regions, through libc, inside a region), and another thread sees
// them once the program synchronises through a point amber sees: a mutex
// unlock (with a condition variable), pthread_create, pthread_join, a heap
// atomic.  AMBER_STRAY_MS is huge here, so only those points can have
// committed the batch; the stats show batches were committed, and that
// every store was counted as stray.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc AMBER_STRAY_MS=3600000 AMBER_STATS_FILE=%t.mvcc.json %run %t | FileCheck %s
// RUN: %python -c "import json,sys; o=json.load(open(sys.argv[1])); assert o['stray_stores']>=8+64 and o['stray_batches']>=5, o; print('stats ok')" %t.mvcc.json | FileCheck %s --check-prefix=STATS
// RUN: env AMBER_ENGINE=romulus AMBER_STRAY_MS=3600000 AMBER_STATS_FILE=%t.rom.json %run %t | FileCheck %s
// RUN: %python -c "import json,sys; o=json.load(open(sys.argv[1])); assert o['stray_stores']>=8+64 and o['stray_batches']>=5, o; print('stats ok')" %t.rom.json | FileCheck %s --check-prefix=STATS
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct root {
  long v[64];
  long x, y, z;
  long flag; /* a heap atomic */
  char s[32];
};
static struct root *r;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready; /* volatile memory, under m */

static long sum_outside(void) {
  long s = 0;
  for (int i = 0; i < 64; i++) s += r->v[i];
  return s;
}

static long sum_inside(void) {
  long s = 0;
  AMBER_ATOMIC {
    for (int i = 0; i < 64; i++) s += r->v[i];
  }
  return s;
}

static void *after_create(void *arg) {
  (void)arg;
  printf("create: outside %ld inside %ld x %ld\n", sum_outside(), sum_inside(), r->x);
  r->y = 7; /* this thread's batch: committed at its end, before join returns */
  return NULL;
}

static void *after_unlock(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  while (!ready) pthread_cond_wait(&cv, &m);
  pthread_mutex_unlock(&m);
  printf("unlock: outside %ld inside %ld z %ld s %s\n", sum_outside(), sum_inside(), r->z, r->s);
  return NULL;
}

static void *after_atomic(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&r->flag, __ATOMIC_ACQUIRE)) {
  }
  printf("atomic: x %ld\n", r->x);
  return NULL;
}

int main(void) {
  r = amber_root(sizeof *r);
  memset(r, 0, sizeof *r); /* outside regions too */
  amber_sync();

  /* Own stores: read back outside, through libc, inside a region. */
  for (int i = 0; i < 64; i++) r->v[i] = i + 1;
  r->x = 42;
  strcpy(r->s, "batched");
  printf("own: outside %ld inside-region %ld strlen %zu\n", sum_outside(), sum_inside(), strlen(r->s));
  // CHECK: own: outside 2080 inside-region 2080 strlen 7

  /* pthread_create releases them to the new thread. */
  for (int i = 0; i < 64; i++) r->v[i] = 2 * (i + 1);
  r->x = 43;
  pthread_t t;
  pthread_create(&t, NULL, after_create, NULL);
  pthread_join(t, NULL);
  // CHECK: create: outside 4160 inside 4160 x 43
  printf("join: y %ld\n", r->y);
  // CHECK: join: y 7

  /* A mutex unlock releases them to the thread that locks it next. */
  pthread_create(&t, NULL, after_unlock, NULL);
  pthread_mutex_lock(&m);
  for (int i = 0; i < 64; i++) r->v[i] = 3 * (i + 1);
  r->z = 9;
  strcpy(r->s, "unlocked");
  ready = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&m);
  pthread_join(t, NULL);
  // CHECK: unlock: outside 6240 inside 6240 z 9 s unlocked

  /* A release store to a heap atomic releases what came before it (the pass
   * makes it an exchange, which commits the batch first), and is itself
   * visible at once: the other thread spins on it. */
  pthread_create(&t, NULL, after_atomic, NULL);
  r->x = 44;
  __atomic_store_n(&r->flag, 1, __ATOMIC_RELEASE);
  pthread_join(t, NULL);
  // CHECK: atomic: x 44
  printf("done\n");
  // CHECK: done
  return 0;
}
// STATS: stats ok
