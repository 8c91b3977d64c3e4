// Threads created and ending in a loop (1000 short threads, at most 4 alive
// at once, each running a region) hand their amber state back when they
// end: through return, pthread_exit, and with amber code run again by a
// thread-local destructor after the state was handed back.  The thread
// table stays bounded (at most the 4 workers and main, plus slack), every
// increment commits, and the data area is up to date after pthread_join
// (the engine's per-thread logs were handed back).  Both engines.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: %run %t return | FileCheck %s --check-prefixes=CHECK,PLAIN
// RUN: %run %t exit | FileCheck %s --check-prefixes=CHECK,PLAIN
// RUN: %run %t tsd | FileCheck %s --check-prefixes=CHECK,TSD
// RUN: env AMBER_ENGINE=mvcc %run %t return 2>/dev/null | FileCheck %s --check-prefixes=CHECK,PLAIN
// RUN: env AMBER_ENGINE=mvcc %run %t exit 2>/dev/null | FileCheck %s --check-prefixes=CHECK,PLAIN
// RUN: env AMBER_ENGINE=mvcc %run %t tsd 2>/dev/null | FileCheck %s --check-prefixes=CHECK,TSD
#include <amber.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

uint32_t amber_thread_states(void); /* libamber: thread states ever made */

#define THREADS 1000
#define AT_ONCE 4

struct root {
  long count, late;
};
static struct root *r;
static int mode; /* 0 return, 1 pthread_exit, 2 thread-local destructor */
static pthread_key_t key;

static void late(void *arg) {
  (void)arg;
  AMBER_ATOMIC { r->late++; }
}

static void *worker(void *arg) {
  AMBER_ATOMIC { r->count++; }
  if (mode == 2) pthread_setspecific(key, arg);
  if (mode == 1) pthread_exit(NULL);
  return NULL;
}

int main(int argc, char **argv) {
  mode = !strcmp(argv[1], "exit") ? 1 : !strcmp(argv[1], "tsd") ? 2 : 0;
  r = amber_root(sizeof *r);
  pthread_key_create(&key, late);
  uint32_t most = 0;
  for (int i = 0; i < THREADS; i += AT_ONCE) {
    pthread_t t[AT_ONCE];
    for (int k = 0; k < AT_ONCE; k++) pthread_create(&t[k], NULL, worker, (void *)1);
    for (int k = 0; k < AT_ONCE; k++) pthread_join(t[k], NULL);
    uint32_t n = amber_thread_states();
    if (n > most) most = n;
  }
  /* Plain loads: the data area itself. */
  printf("count %ld late %ld\n", r->count, r->late);
  if (most <= AT_ONCE + 1 + 2) printf("thread states bounded\n");
  else printf("thread states grew to %u\n", most);
  return 0;
}
// PLAIN: count 1000 late 0
// TSD: count 1000 late 1000
// CHECK-NEXT: thread states bounded
