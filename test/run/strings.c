// libc string and memory functions inside regions (rewritten to runtime
// wrappers by the pass) on persistent buffers; the results persist.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct root {
  char name[64];
  char copy[64];
  char fixed[16];
  char moved[32];
  unsigned char block[256];
  char *dup;
  long len, cmp1, cmp2, cmp3, ncmp;
};

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  if (r->name[0] == 0) {
    const char *who = argc > 5 ? argv[5] : "persistent"; /* not a constant to the compiler */
    AMBER_ATOMIC {
      strcpy(r->name, "hello, ");
      strcat(r->name, who);
      strcat(r->name, " world");
      r->len = strlen(r->name);
      memcpy(r->copy, r->name, r->len + 1);
      strncpy(r->fixed, "abcdefghijklmnopqrstuvwxyz", sizeof r->fixed - 1);
      r->fixed[sizeof r->fixed - 1] = 0;
      memset(r->block, 0xab, sizeof r->block);
      memset(r->block + 100, 0, 28);
      strcpy(r->moved, "0123456789");
      memmove(r->moved + 2, r->moved, 10);   /* overlapping */
      r->moved[12] = 0;
      r->cmp1 = strcmp(r->name, r->copy);
      r->cmp2 = strcmp(r->name, "hello") > 0;
      r->cmp3 = memcmp(r->block, r->block + 128, 100) == 0;
      r->ncmp = strncmp(r->fixed, "abcdefgXYZ", 7);
      r->dup = strdup(r->name);
    }
    printf("first run done\n");
    return 0;
  }
  long zeros = 0, abs_ = 0;
  for (int i = 0; i < 256; i++) {
    zeros += r->block[i] == 0;
    abs_ += r->block[i] == 0xab;
  }
  printf("name [%s] len %ld\n", r->name, r->len);
  printf("copy [%s]\n", r->copy);
  printf("fixed [%s]\n", r->fixed);
  printf("moved [%s]\n", r->moved);
  printf("block zeros %ld ab %ld\n", zeros, abs_);
  printf("cmp %ld %ld %ld %ld\n", r->cmp1, r->cmp2, r->cmp3, r->ncmp);
  printf("dup [%s] distinct %d\n", r->dup, r->dup != r->name);
  return 0;
}
// FIRST: first run done
// SECOND: name [hello, persistent world] len 23
// SECOND-NEXT: copy [hello, persistent world]
// SECOND-NEXT: fixed [abcdefghijklmno]
// SECOND-NEXT: moved [010123456789]
// SECOND-NEXT: block zeros 28 ab 228
// SECOND-NEXT: cmp 0 1 1 0
// SECOND-NEXT: dup [hello, persistent world] distinct 1
