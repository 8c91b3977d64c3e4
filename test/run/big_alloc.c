// A 64 KiB and a 1 MiB allocation and 10000 small ones inside regions: all
// contents survive into the next run, and freeing them returns the usage.
// The first region stores 1.3 MiB: on mvcc its value record (the default)
// outgrows the default 1 MiB OLog ring, so it restarts and runs alone
// (docs/engines/mvcc.md, "Large transactions").
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMALL 10000

struct root {
  unsigned char *big;     /* 64 KiB */
  long *huge;             /* 1 MiB */
  int *small[SMALL];      /* 16 bytes each */
  size_t objects_before, bytes_before;
};

int main(void) {
  struct root *r = amber_root(sizeof *r);
  struct amber_usage u;
  if (!r->big) {
    amber_usage(&u);
    size_t ob = u.objects, bb = u.bytes;
    AMBER_ATOMIC {
      r->objects_before = ob;
      r->bytes_before = bb;
      r->big = malloc(64 * 1024);
      for (int i = 0; i < 64 * 1024; i++)
        r->big[i] = (unsigned char)(i * 31 + 7);
      r->huge = malloc(1 << 20);
      memset(r->huge, 0, 1 << 20);
      r->huge[(1 << 17) - 1] = 42;
    }
    for (int i = 0; i < SMALL; i++) {
      AMBER_ATOMIC {
        r->small[i] = malloc(16);
        for (int j = 0; j < 4; j++)
          r->small[i][j] = i * 4 + j;
      }
    }
    amber_usage(&u);
    printf("objects +%zu bytes-ok %d\n", u.objects - ob,
           u.bytes - bb >= 64 * 1024 + (1 << 20) + SMALL * 16);
    return 0;
  }
  long bad = 0;
  for (int i = 0; i < 64 * 1024; i++)
    bad += r->big[i] != (unsigned char)(i * 31 + 7);
  for (int i = 0; i < SMALL; i++)
    for (int j = 0; j < 4; j++)
      bad += r->small[i][j] != i * 4 + j;
  printf("bad %ld last %ld\n", bad, r->huge[(1 << 17) - 1]);
  AMBER_ATOMIC {
    free(r->big);
    free(r->huge);
    for (int i = 0; i < SMALL; i++)
      free(r->small[i]);
  }
  amber_usage(&u);
  printf("after free: objects +%zu bytes +%zu\n", u.objects - r->objects_before,
         u.bytes - r->bytes_before);
  return 0;
}
// FIRST: objects +10002 bytes-ok 1
// SECOND: bad 0 last 42
// SECOND-NEXT: after free: objects +0 bytes +0
