// A persistent write outside any region (a store, an atomic, a memset, a
// libc strcpy) is a transaction of its own and a stray store: AMBER_STATS
// and AMBER_STATS_FILE count them (stray_stores) by source site
// (stray_store_sites: "file:line", or the function's name without debug
// info).  Writes inside a region, and to volatile memory, are not counted.
// Each line marked "stray xN" below must be a site counted N times.
// RUN: %amber_cc -O1 %s -o %t
// RUN: env AMBER_STATS_FILE=%t.json %run %t | FileCheck %s
// RUN: %python %S/Inputs/outside_stray_sites.py %t.json %s | FileCheck %s --check-prefix=SITES
// RUN: env AMBER_STATS=1 %rerun %t 2>&1 | FileCheck %s --check-prefix=TEXT
// RUN: %amber_cc -O1 -g0 %s -o %t.nodbg
// RUN: env AMBER_STATS_FILE=%t.nodbg.json %run %t.nodbg | FileCheck %s
// RUN: %python -c "import json,sys; o=json.load(open(sys.argv[1])); s={x['site']: x['count'] for x in o['stray_store_sites']}; \
// RUN:   assert o['stray_stores']==6 and s=={'set_x': 3, 'bump': 1, 'fill': 1, 'name': 1}, o; print('nodbg ok')" %t.nodbg.json | FileCheck %s --check-prefix=NODBG
#include <amber.h>
#include <stdio.h>
#include <string.h>

struct root {
  long x;
  long c;
  char blk[64];
  char s[32];
};
char src[16] = "stray";

__attribute__((noinline)) void set_x(struct root *r, long v) {
  r->x = v; // stray x3
}
__attribute__((noinline)) void bump(struct root *r) {
  __atomic_fetch_add(&r->c, 1, __ATOMIC_SEQ_CST); // stray x1
}
__attribute__((noinline)) void fill(struct root *r, int c) {
  memset(r->blk, c, sizeof r->blk); // stray x1
}
__attribute__((noinline)) void name(struct root *r, const char *s) {
  strcpy(r->s, s); // stray x1
}

int main(int argc, char **argv) {
  (void)argv;
  struct root *r = amber_root(sizeof *r);
  for (int i = 1; i <= 3; i++) set_x(r, i);
  bump(r);
  fill(r, 'b');
  name(r, src);
  AMBER_ATOMIC { set_x(r, r->x + 4); } /* inside a region: not stray */
  long local[4] = {0};
  set_x((struct root *)local, argc); /* volatile memory: not stray */
  printf("x %ld c %ld blk %.3s s %s\n", r->x, r->c, r->blk, r->s);
  return 0;
}
// CHECK: x 7 c {{[12]}} blk bbb s stray
// SITES: stray_stores 6
// SITES-NEXT: outside_stray.c:{{[0-9]+}} 3 ok
// SITES-NEXT: outside_stray.c:{{[0-9]+}} 1 ok
// SITES-NEXT: outside_stray.c:{{[0-9]+}} 1 ok
// SITES-NEXT: outside_stray.c:{{[0-9]+}} 1 ok
// SITES-NEXT: sites ok
// TEXT: stray stores       6
// TEXT-NEXT: {{.*}}outside_stray.c:{{[0-9]+}} {{ *}}3
// NODBG: nodbg ok
