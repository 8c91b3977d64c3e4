// Regions isolate ordinary (volatile) memory from each other (issue [1d/7],
// "atomic means atomic"): a writer thread stores the same value to ordinary
// words in one AMBER_ATOMIC region (`a = i; b = i;`), reader threads load
// them in one region (`x = a; y = b;`) and count the views where they
// differ.  Three sets of W words: ordinary globals, fields of an object made
// with plain malloc outside any region, and globals with fields of that
// object (W words rather than two widen the window a torn view needs).  No region may ever see
// a half-done writer, on any engine and at any isolation level: mismatches
// is 0 whatever the interleaving.  Before ordinary memory was isolated,
// readers saw torn pairs on both engines.
// `volatile_pair READERS WRITES`.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t 2 30000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=si %run %t 2 30000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=ser %run %t 2 30000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=lin %run %t 2 30000 | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t 2 30000 | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t 3 20000 | FileCheck %s --check-prefix=R3
// RUN: env AMBER_ENGINE=romulus %run %t 3 20000 | FileCheck %s --check-prefix=R3
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define W 8

struct obj { long x[W], pad[8], z[W]; }; /* plain malloc, outside regions */

long a[W], c[W]; /* ordinary globals */
static struct obj *o;
static long writes;
static int done;
static pthread_barrier_t start;

static void *writer(void *arg) {
  (void)arg;
  pthread_barrier_wait(&start);
  for (long i = 1; i <= writes; i++) {
    AMBER_ATOMIC {
      for (int k = 0; k < W; k++)
        a[k] = i;
    }
    AMBER_ATOMIC {
      for (int k = 0; k < W; k++)
        o->x[k] = i;
    }
    AMBER_ATOMIC {
      for (int k = 0; k < W; k++) {
        c[k] = i;
        o->z[k] = i;
      }
    }
  }
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* Mismatches seen by one reader, per pair. */
struct seen { long globals, object, mixed; };

static void *reader(void *arg) {
  struct seen *s = arg;
  pthread_barrier_wait(&start);
  do {
    long bad = 0;
    AMBER_ATOMIC {
      bad = 0;
      for (int k = 1; k < W; k++)
        bad |= a[k] != a[0];
    }
    s->globals += bad;
    AMBER_ATOMIC {
      bad = 0;
      for (int k = 1; k < W; k++)
        bad |= o->x[k] != o->x[0];
    }
    s->object += bad;
    AMBER_ATOMIC {
      bad = 0;
      for (int k = 0; k < W; k++)
        bad |= c[k] != c[0] || o->z[k] != c[0];
    }
    s->mixed += bad;
  } while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE));
  return NULL;
}

int main(int argc, char **argv) {
  long nreaders = argc > 1 ? atol(argv[1]) : 2;
  writes = argc > 2 ? atol(argv[2]) : 30000;
  if (nreaders < 1 || nreaders > 16 || writes < 1) {
    fprintf(stderr, "usage: %s READERS WRITES\n", argv[0]);
    return 2;
  }
  o = calloc(1, sizeof *o); /* volatile: outside regions */
  struct seen s[16] = {{0}};
  pthread_t w, t[16];
  pthread_barrier_init(&start, NULL, nreaders + 1);
  pthread_create(&w, NULL, writer, NULL);
  for (long i = 0; i < nreaders; i++)
    pthread_create(&t[i], NULL, reader, &s[i]);
  pthread_join(w, NULL);
  long globals = 0, object = 0, mixed = 0;
  for (long i = 0; i < nreaders; i++) {
    pthread_join(t[i], NULL);
    globals += s[i].globals;
    object += s[i].object;
    mixed += s[i].mixed;
  }
  long same = 1;
  for (int k = 0; k < W; k++)
    same &= a[k] == writes && o->x[k] == writes && c[k] == writes && o->z[k] == writes;
  printf("readers %ld writes %ld final %s\n", nreaders, writes, same ? "all equal" : "differ");
  printf("mismatches %ld (globals %ld object %ld mixed %ld)\n", globals + object + mixed, globals,
         object, mixed);
  return 0;
}
// CHECK: readers 2 writes 30000 final all equal
// CHECK-NEXT: mismatches 0 (globals 0 object 0 mixed 0)
// R3: readers 3 writes 20000 final all equal
// R3-NEXT: mismatches 0 (globals 0 object 0 mixed 0)
