// AMBER_ATOMIC_FN: the whole function body is one region; it can allocate,
// return a value, and be called from inside another region.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>

struct node { long v; struct node *next; };
struct root { struct node *head; long n; long calls; };

AMBER_ATOMIC_FN long push(struct root *r, long v) {
  struct node *n = malloc(sizeof *n);
  n->v = v;
  n->next = r->head;
  r->head = n;
  return ++r->n;
}

AMBER_ATOMIC_FN void count_call(struct root *r) { r->calls++; }

int main(void) {
  struct root *r = amber_root(sizeof *r);
  long last = 0;
  for (long i = 1; i <= 10; i++)
    last = push(r, i);
  AMBER_ATOMIC {
    count_call(r);
    push(r, 100);
  }
  long s = 0;
  for (struct node *n = r->head; n; n = n->next)
    s += n->v;
  printf("last %ld n %ld sum %ld calls %ld\n", last, r->n, s, r->calls);
  return 0;
}
// FIRST: last 10 n 11 sum 155 calls 1
// SECOND: last 21 n 22 sum 310 calls 2
