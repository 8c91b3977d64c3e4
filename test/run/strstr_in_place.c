// strstr and strcasestr on persistent strings outside regions (the
// interceptors, wrappers/strsearch.c), as STAMP's intruder calls them: its
// detector lowers a packet's bytes in place (stray stores: the thread's
// batch) and then searches it once per signature.  With romulus and a
// batch open the search runs in place at the heap's alias
// (amber_interpose_in_place); otherwise through the engine in pieces, with
// a window on the stack or, for a long needle, from malloc.  Either way the
// answers are those of the same calls on a volatile copy, at the program's
// addresses, and include the batch's own stores.  Strict mode (the
// default) would stop a search that read the canonical window itself.
// RUN: %amber_cc -O1 %s -o %t
// RUN: env AMBER_ENGINE=romulus %run %t | FileCheck %s
// RUN: env AMBER_ENGINE=mvcc %run %t | FileCheck %s
#define _GNU_SOURCE
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEN 3000

struct root {
  char *s;
};

static int bad;
static void check(const char *what, const char *p, const char *got, const char *v, const char *want) {
  long g = got ? (long)(got - p) : -1, w = want ? (long)(want - v) : -1;
  if (g != w) {
    printf("%s: at %ld, want %ld\n", what, g, w);
    bad++;
  }
}

int main(void) {
  struct root *r = amber_root(sizeof *r);
  char *v = malloc(LEN + 1);
  for (int i = 0; i < LEN; i++) v[i] = "abcdefghij"[i % 10];
  v[LEN] = 0;
  AMBER_ATOMIC {
    r->s = malloc(LEN + 1);
    memcpy(r->s, v, LEN + 1);
  }
  char *p = r->s;
  char *needle = malloc(900);
  for (int round = 0; round < 3; round++) {
    // Stray stores (a batch on romulus), then the searches see them.
    int at = 100 + round * 1100;
    memcpy(p + at, "NeEdLe", 6);
    memcpy(v + at, "NeEdLe", 6);
    check("strstr", p, strstr(p, "NeEdLe"), v, strstr(v, "NeEdLe"));
    check("strstr miss", p, strstr(p, "needle"), v, strstr(v, "needle"));
    check("strcasestr", p, strcasestr(p, "needle"), v, strcasestr(v, "needle"));
    check("strstr inside", p, strstr(p + at + 1, "abc"), v, strstr(v + at + 1, "abc"));
    check("strstr empty", p, strstr(p + 7, ""), v, strstr(v + 7, ""));
    // A needle longer than the stack window, across pieces of the scan.
    memcpy(needle, v + 1500, 899);
    needle[899] = 0;
    check("strstr long", p, strstr(p, needle), v, strstr(v, needle));
    needle[0] ^= 0x20;
    check("strcasestr long", p, strcasestr(p, needle), v, strcasestr(v, needle));
    needle[5] = '#';
    check("strstr long miss", p, strstr(p, needle), v, strstr(v, needle));
  }
  // Inside a region: its own uncommitted stores.
  AMBER_ATOMIC {
    memcpy(p + 2900, "ZzZ", 3);
    check("strstr in region", p, strstr(p, "ZzZ"), p, p + 2900);
  }
  // CHECK: strstr_in_place: 0 bad
  printf("strstr_in_place: %d bad\n", bad);
  return bad != 0;
}
