// Types with unusual sizes inside regions: long double (x86 80-bit), __int128,
// vectors, bit-fields, _Bool, a packed struct with unaligned fields, and
// atomic read-modify-write on persistent memory.
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=FIRST
// RUN: %rerun %t | FileCheck %s --check-prefix=SECOND
#include <amber.h>
#include <stdbool.h>
#include <stdio.h>

typedef float float4 __attribute__((ext_vector_type(4)));

struct __attribute__((packed)) packed { char c; long l; short s; int i; };
struct bits { unsigned a : 3, b : 7, c : 22; };
struct root {
  long double ld;
  __int128 big;
  float4 v;
  struct bits bits;
  bool flag;
  struct packed pk;
  long atomic_ctr;
  char three[3];
};

int main(void) {
  struct root *r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    r->ld = r->ld * 2 + 1.25L;
    r->big = (r->big << 40) + 5;
    float4 add = {1, 2, 3, 4};
    r->v = r->v + add;
    r->bits.a += 1;
    r->bits.b += 3;
    r->bits.c += 100000;
    r->flag = !r->flag;
    r->pk.c = 'p';
    r->pk.l += 1L << 40;
    r->pk.s -= 7;
    r->pk.i += 9;
    __atomic_fetch_add(&r->atomic_ctr, 3, __ATOMIC_SEQ_CST);
    long expected = r->atomic_ctr;
    __atomic_compare_exchange_n(&r->atomic_ctr, &expected, expected * 10, false,
                                __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    r->three[0] = 'x'; r->three[1] = 'y'; r->three[2] = 0;
  }
  printf("ld %.2Lf big_hi %lld big_lo %lld v %.0f %.0f %.0f %.0f\n", r->ld,
         (long long)(r->big >> 64), (long long)(r->big & 0xffffffffffffLL),
         r->v.x, r->v.y, r->v.z, r->v.w);
  printf("bits %u %u %u flag %d pk %c %ld %d %d ctr %ld three %s\n", r->bits.a, r->bits.b,
         r->bits.c, r->flag, r->pk.c, r->pk.l, r->pk.s, r->pk.i, r->atomic_ctr, r->three);
  return 0;
}
// FIRST: ld 1.25 big_hi 0 big_lo 5 v 1 2 3 4
// FIRST-NEXT: bits 1 3 100000 flag 1 pk p 1099511627776 -7 9 ctr 30 three xy
// SECOND: ld 3.75 big_hi 0 big_lo 5497558138885 v 2 4 6 8
// SECOND-NEXT: bits 2 6 200000 flag 0 pk p 2199023255552 -14 18 ctr 330 three xy
