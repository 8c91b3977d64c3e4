// amber_close checkpoints and closes the heap; the program can go on with
// volatile work, and the next run finds everything committed before it.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>

struct root { long runs; long *data; };

int main(void) {
  struct root *r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    r->runs++;
    if (!r->data)
      r->data = calloc(8, sizeof(long));
    r->data[r->runs % 8] = r->runs * 11;
  }
  long runs = r->runs, v = r->data[r->runs % 8];
  printf("close %d\n", amber_close());
  char *vol = malloc(100); /* volatile memory still works */
  snprintf(vol, 100, "runs %ld value %ld", runs, v);
  printf("%s\n", vol);
  free(vol);
  return 0;
}
// FIRST: close 0
// FIRST-NEXT: runs 1 value 11
// SECOND: close 0
// SECOND-NEXT: runs 2 value 22
