// malloc, calloc, realloc and free inside regions allocate from the
// persistent heap; the data survives into the next run.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>

struct root {
  long *grown;      /* malloc'd with 10 longs, realloc'd to 1000 */
  long *zeroed;     /* calloc'd */
  char *scratch;    /* malloc'd and freed again */
  long freed_in_region;
};

int main(void) {
  struct root *r = amber_root(sizeof *r);
  if (!r->grown) {
    AMBER_ATOMIC {
      r->grown = malloc(10 * sizeof(long));
      for (int i = 0; i < 10; i++)
        r->grown[i] = i * i;
      r->zeroed = calloc(100, sizeof(long));
      char *tmp = malloc(32);
      tmp[0] = 'x';
      free(tmp);
      r->freed_in_region = 1;
    }
    long zsum = 0;
    for (int i = 0; i < 100; i++)
      zsum += r->zeroed[i] != 0;
    printf("calloc nonzero %ld\n", zsum);
    AMBER_ATOMIC {
      r->grown = realloc(r->grown, 1000 * sizeof(long));
      for (int i = 10; i < 1000; i++)
        r->grown[i] = i * i;
      for (int i = 0; i < 100; i++)
        r->zeroed[i] = 3;
      r->scratch = malloc(100);
      r->scratch[99] = 7;
    }
    AMBER_ATOMIC {
      free(r->scratch);
      r->scratch = NULL;
    }
    printf("first run done\n");
    return 0;
  }
  long bad = 0, zs = 0;
  for (long i = 0; i < 1000; i++)
    bad += r->grown[i] != i * i;
  for (int i = 0; i < 100; i++)
    zs += r->zeroed[i];
  printf("realloc'd bad %ld, calloc'd sum %ld, scratch %p, freed %ld\n", bad, zs,
         (void *)r->scratch, r->freed_in_region);
  AMBER_ATOMIC {
    free(r->grown);
    free(r->zeroed);
    r->grown = NULL;
    r->zeroed = NULL;
  }
  return 0;
}
// FIRST: calloc nonzero 0
// FIRST: first run done
// SECOND: realloc'd bad 0, calloc'd sum 300, scratch (nil), freed 1
