// Code outside regions reads the latest committed state, not a stale data
// area: mvcc keeps a commit's new versions in DRAM while an older
// transaction still runs, so a plain load of the master would see the old
// bytes.  The pass's range checks send loads, a memcpy from the heap, a libc
// reader (strlen) and loads through a persistent pointer to the runtime.
// No timing: the old reader holds its region open until main is done (mvcc
// only: under romulus a writer waits for that reader).
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc AMBER_ISOLATION=si %run %t | FileCheck %s
// RUN: %amber_cc -O0 %s -o %t0 -pthread
// RUN: env AMBER_ENGINE=mvcc %run %t0 | FileCheck %s
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
  long val;
  struct node *next;
};
struct root {
  long x;
  char name[32];
  struct node *list;
  long arr[8];
  long seen;
};
static struct root *r;
static int started, done;

static void *old_reader(void *arg) {
  (void)arg;
  long n = 0;
  AMBER_ATOMIC_ISO(AMBER_SI) {
    n = r->x;
    __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
    }
  }
  r->seen = n;
  return NULL;
}

__attribute__((noinline)) static long sum(const long *a, int n) {
  long s = 0;
  for (int i = 0; i < n; i++) s += a[i];
  return s;
}

int main(void) {
  r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    r->x = 1;
    strcpy(r->name, "old");
    struct node *n = malloc(sizeof *n);
    n->val = 10;
    n->next = NULL;
    r->list = n;
    for (int i = 0; i < 8; i++) r->arr[i] = i;
  }
  pthread_t t;
  pthread_create(&t, NULL, old_reader, NULL);
  while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE)) {
  }
  AMBER_ATOMIC { /* newer than the reader's snapshot */
    r->x = 2;
    strcpy(r->name, "the new name");
    r->list->val = 20;
    for (int i = 0; i < 8; i++) r->arr[i] = 100 + i;
  }
  /* Outside any region. */
  long x = r->x;
  char buf[32];
  memcpy(buf, r->name, sizeof buf);
  size_t len = strlen(r->name);
  long v = r->list->val;
  long s = sum(r->arr, 8);
  printf("x %ld name %s len %zu val %ld sum %ld\n", x, buf, len, v, s);
  fflush(stdout);
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  pthread_join(t, NULL);
  printf("reader saw %ld\n", r->seen);
  return 0;
}
// CHECK: x 2 name the new name len 12 val 20 sum 828
// CHECK: reader saw 1
