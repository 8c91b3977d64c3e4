// Two threads insert into one persistent linked list (and allocate) inside
// AMBER_ATOMIC regions: every node present exactly once, length exact.
// RUN: %amber_cc -O2 %s -o %t -pthread
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define PER_THREAD 3000

struct node { long id; struct node *next; };
struct root { struct node *head; long len; long round; };
static struct root *r;
static long round_;

static void *worker(void *arg) {
  long tid = (long)arg;
  for (long i = 0; i < PER_THREAD; i++) {
    long id = (round_ * 2 + tid) * PER_THREAD + i;
    AMBER_ATOMIC {
      struct node *n = malloc(sizeof *n);
      n->id = id;
      n->next = r->head;
      r->head = n;
      r->len++;
    }
  }
  return NULL;
}

int main(void) {
  pthread_t t[2];
  r = amber_root(sizeof *r);
  round_ = r->round;
  for (long i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  AMBER_ATOMIC { r->round++; }

  long total = (round_ + 1) * 2 * PER_THREAD, walked = 0, dup = 0, bad = 0;
  char *seen = calloc(total, 1); /* volatile */
  for (struct node *n = r->head; n; n = n->next, walked++) {
    if (n->id < 0 || n->id >= total) { bad++; continue; }
    dup += seen[n->id]++ != 0;
  }
  long missing = 0;
  for (long i = 0; i < total; i++)
    missing += !seen[i];
  printf("len %ld walked %ld dup %ld missing %ld bad %ld\n", r->len, walked, dup, missing, bad);
  return 0;
}
// FIRST: len 6000 walked 6000 dup 0 missing 0 bad 0
// SECOND: len 12000 walked 12000 dup 0 missing 0 bad 0
