// free() of a persistent pointer outside any region is a persistent free:
// the usage drops and stays dropped in the next run.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>

struct root {
  long stage;
  char *p;
  size_t objects_before;
};

int main(void) {
  struct root *r = amber_root(sizeof *r);
  struct amber_usage u;
  if (r->stage == 0) {
    amber_usage(&u);
    size_t before = u.objects;
    char *p;
    AMBER_ATOMIC {
      p = malloc(4000);
      p[0] = 1;
      r->objects_before = before;
      r->stage = 1;
    }
    amber_usage(&u);
    printf("after malloc: +%zu\n", u.objects - before);
    free(p); /* outside any region */
    amber_usage(&u);
    printf("after free: +%zu\n", u.objects - before);
    char *q = malloc(64); /* outside any region: an ordinary volatile malloc */
    q[0] = 2;
    amber_usage(&u);
    printf("volatile malloc: +%zu\n", u.objects - before);
    free(q);
    return 0;
  }
  amber_usage(&u);
  printf("next run: +%zu\n", u.objects - r->objects_before);
  return 0;
}
// FIRST: after malloc: +1
// FIRST-NEXT: after free: +0
// FIRST-NEXT: volatile malloc: +0
// SECOND: next run: +0
