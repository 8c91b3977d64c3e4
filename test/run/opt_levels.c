// The same regions compiled at -O0, -O1, -O2, -O3 and -Os: the pass runs at
// every level and the results agree.
// RUN: %amber_cc -O0 %s -o %t.O0 && %run %t.O0 | FileCheck %s
// RUN: %amber_cc -O1 %s -o %t.O1 && %run %t.O1 | FileCheck %s
// RUN: %amber_cc -O3 %s -o %t.O3 && %run %t.O3 | FileCheck %s
// RUN: %amber_cc -Os %s -o %t.Os && %run %t.Os | FileCheck %s
// RUN: %amber_cc -O0 -g %s -o %t.g && %run %t.g | FileCheck %s
// The heap written by the -O0 -g binary, reopened by the -O3 one:
// RUN: %rerun %t.O3 | FileCheck %s --check-prefix=AGAIN
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>

struct node { int v; struct node *next; };
struct root { long sum; int arr[100]; struct node *list; };

static int square(int x) { return x * x; }

int main(void) {
  struct root *r = amber_root(sizeof *r);
  int scale = 3;
  long s = 0;
  AMBER_ATOMIC {
    for (int i = 0; i < 100; i++)
      r->arr[i] += square(i) * scale;
    for (int i = 0; i < 100; i++)
      s += r->arr[i];
    r->sum = s;
    struct node *n = malloc(sizeof *n);
    n->v = (int)(s % 1000);
    n->next = r->list;
    r->list = n;
  }
  int len = 0;
  for (struct node *n = r->list; n; n = n->next)
    len++;
  printf("sum %ld stored %ld list %d\n", s, r->sum, len);
  return 0;
}
// CHECK: sum 985050 stored 985050 list 1
// AGAIN: sum 1970100 stored 1970100 list 2
