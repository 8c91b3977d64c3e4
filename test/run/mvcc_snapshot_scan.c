// mvcc engine: long read-only scans concurrent with writers see one
// consistent snapshot.  Writers move units between 512 slots (64 blocks),
// keeping the sum zero, and bump a generation counter they also copy into
// the first and last slot's neighbours; a scan reads everything twice and
// must see the same values both times, a zero sum, and matching generations.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t 1 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t 2 | FileCheck %s
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS 512
#define WRITERS 2
#define ITERS 3000

struct root { long gen_head; long slot[SLOTS]; long gen_tail; };
static struct root *r;
static int iso;
static volatile int done;

static void *writer(void *arg) {
  unsigned seed = 777u + (unsigned)(long)arg;
  for (int i = 0; i < ITERS; i++) {
    int a = rand_r(&seed) % SLOTS, b = rand_r(&seed) % SLOTS;
    long d = rand_r(&seed) % 50;
    AMBER_ATOMIC_ISO(iso) {
      r->slot[a] -= d;
      r->slot[b] += d;
      r->gen_head++;
      r->gen_tail = r->gen_head;
    }
  }
  __atomic_fetch_add(&done, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

static long scans, bad;
static long first[SLOTS];

static void *scanner(void *arg) {
  (void)arg;
  while (__atomic_load_n(&done, __ATOMIC_SEQ_CST) < WRITERS || scans < 20) {
    long sum = 0, differ = 0, gh = 0, gt = 0;
    AMBER_ATOMIC_ISO(iso) {
      sum = 0;
      differ = 0;
      gh = r->gen_head;
      for (int i = 0; i < SLOTS; i++) {
        first[i] = r->slot[i];
        sum += first[i];
      }
      for (int i = 0; i < SLOTS; i++) differ += r->slot[i] != first[i];
      gt = r->gen_tail;
    }
    scans++;
    if (sum != 0 || differ || gh != gt) bad++;
  }
  return NULL;
}

int main(int argc, char **argv) {
  iso = argc > 1 ? atoi(argv[1]) : AMBER_SI;
  r = amber_root(sizeof *r);
  pthread_t w[WRITERS], s;
  pthread_create(&s, NULL, scanner, NULL);
  for (long i = 0; i < WRITERS; i++) pthread_create(&w[i], NULL, writer, (void *)i);
  for (int i = 0; i < WRITERS; i++) pthread_join(w[i], NULL);
  pthread_join(s, NULL);
  printf("scans>=20 %d bad %ld gen %ld\n", scans >= 20, bad, r->gen_head);
  return 0;
}
// CHECK: scans>=20 1 bad 0 gen 6000
