// kill -9 in the middle of a region's qsort of a 64 KiB persistent array
// (issue 22, wrappers/sort.c): the comparator raises SIGKILL after some
// comparisons, while the sort's copies (three of 64 KiB, volatile scratch
// memory of the transaction) are in use and the region has stored nothing
// back yet.  After it: the heap checks consistent with its root as its one
// object (nothing of the sort was persistent, nothing leaked), the array is
// as it was before the region (recovery, twice), and the same sort run to
// its end sorts it.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t init | FileCheck %s --check-prefix=INIT
// RUN: not --crash %rerun %t kill
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// RUN: %rerun %t show | FileCheck %s --check-prefix=KILLED
// RUN: %rerun %t show | FileCheck %s --check-prefix=KILLED
// RUN: %rerun %t sort
// RUN: %rerun %t show | FileCheck %s --check-prefix=SORTED
// RUN: %amber check %t.heap | FileCheck %s --check-prefix=CHECKED
// INIT: init: 8192 elements
// CHECKED: consistent ({{[a-z]+}} engine, 1 objects, 65536 bytes in use of {{[0-9]+}}, root at offset {{0x[0-9a-f]+}}, 65536 bytes)
// KILLED: as before 1 sorted 0
// SORTED: as before 0 sorted 1
#include <amber.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 8192

struct root {
  long a[N];
};

static AMBER_UNISOLATED long compares, kill_after;

static int by_value(const void *x, const void *y) {
  long a = *(const long *)x, b = *(const long *)y;
  if (kill_after && ++compares >= kill_after) raise(SIGKILL); /* mid-sort (after a restart, if raise makes it one) */
  return (a > b) - (a < b);
}

static long original(long i) { return (i * 7919) % N; }

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  const char *mode = argc > 1 ? argv[1] : "show";
  if (!strcmp(mode, "init")) {
    AMBER_ATOMIC {
      for (long i = 0; i < N; i++) r->a[i] = original(i);
    }
    printf("init: %d elements\n", N);
  } else if (!strcmp(mode, "kill") || !strcmp(mode, "sort")) {
    kill_after = !strcmp(mode, "kill") ? 20000 : 0;
    AMBER_ATOMIC { qsort(r->a, N, sizeof r->a[0], by_value); }
  } else {
    int before = 1, sorted = 1;
    for (long i = 0; i < N; i++) before &= r->a[i] == original(i);
    for (long i = 1; i < N; i++) sorted &= r->a[i - 1] <= r->a[i];
    printf("as before %d sorted %d\n", before, sorted);
  }
  return 0;
}
