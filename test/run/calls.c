// Regions that call helper functions (transactional clones): the helpers'
// stores to persistent memory, their allocations and recursion all commit
// with the region.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>

struct item { long v; struct item *next; };
struct root { long a, b, depth; struct item *list; long total; };

__attribute__((noinline)) static void set_pair(struct root *r, long a, long b) {
  r->a = a;
  r->b = b;
}

__attribute__((noinline)) static struct item *push(struct item *head, long v) {
  struct item *it = malloc(sizeof *it);
  it->v = v;
  it->next = head;
  return it;
}

/* Recursive: builds a list of n items and records the depth reached. */
__attribute__((noinline)) static struct item *build(struct root *r, long n) {
  if (n == 0)
    return r->list;
  if (n > r->depth)
    r->depth = n;
  return push(build(r, n - 1), n);
}

__attribute__((noinline)) long sum_list(const struct item *it) {
  long s = 0;
  for (; it; it = it->next)
    s += it->v;
  return s;
}

int main(void) {
  struct root *r = amber_root(sizeof *r);
  if (!r->list) {
    AMBER_ATOMIC {
      set_pair(r, 11, 22);
      r->list = build(r, 100);
      r->total = sum_list(r->list);
    }
    printf("first run total %ld\n", r->total);
    return 0;
  }
  printf("a %ld b %ld depth %ld total %ld recount %ld\n", r->a, r->b, r->depth,
         r->total, sum_list(r->list));
  return 0;
}
// FIRST: first run total 5050
// SECOND: a 11 b 22 depth 100 total 5050 recount 5050
