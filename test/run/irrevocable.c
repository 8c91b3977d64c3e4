// A region whose body calls functions the pass cannot see (getpid,
// snprintf) runs irrevocably and still commits (printf is held to the
// commit; qsort with a callback runs in the transaction: qsort_region.c).  The
// external calls only write volatile memory; the region copies their results
// into persistent memory itself (what docs/guide.md recommends).
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct root { long runs; long pid_seen; char text[32]; int sorted[5]; };

static int cmp_int(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}

int main(void) {
  struct root *r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    r->runs++;
    printf("inside region, run %ld\n", r->runs);
    r->pid_seen = getpid() > 0;
    char buf[32];
    snprintf(buf, sizeof buf, "run-%ld", r->runs);
    strcpy(r->text, buf);
    int v[5] = {5, 3, 9, 1, 7};
    for (int i = 0; i < 5; i++)
      v[i] *= (int)r->runs;
    qsort(v, 5, sizeof(int), cmp_int);
    memcpy(r->sorted, v, sizeof v);
  }
  fflush(stdout);
  printf("runs %ld pid %ld text %s sorted %d %d %d %d %d\n", r->runs, r->pid_seen, r->text,
         r->sorted[0], r->sorted[1], r->sorted[2], r->sorted[3], r->sorted[4]);
  return 0;
}
// FIRST: inside region, run 1
// FIRST-NEXT: runs 1 pid 1 text run-1 sorted 1 3 5 7 9
// SECOND: inside region, run 2
// SECOND-NEXT: runs 2 pid 1 text run-2 sorted 2 6 10 14 18
