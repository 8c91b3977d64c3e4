// Function pointers in the heap (issue 27 [2b/7] item 1; docs/guide.md,
// "Function pointers in the heap").  One run stores code addresses into the
// heap: its own functions (one static), a libc function found by dlsym, set
// inside a region, outside one, and copied in by memcpy.  Later runs call,
// compare and copy them: the same binary again (PIE: another load address),
// a rebuild with functions added before them (their addresses move), a
// -no-pie build, and romulus.  A rebuild without the function stops with an
// amber: error naming it, not a bare SIGSEGV; a function's address stored
// as an integer gets a compile-time warning naming the line.
//
// RUN: rm -rf %t.d && mkdir -p %t.d
// RUN: %amber_cc -O2 %s -o %t.d/prog
// RUN: %amber_cc -O2 -DMOVED %s -o %t.d/moved
// RUN: %amber_cc -O0 -DMOVED -no-pie %s -o %t.d/nopie
// RUN: %amber_cc -O2 -DREMOVED %s -o %t.d/removed
// A code address stored as an integer cannot be kept: a warning at the line.
// RUN: %amber_cc -O2 -DASINT -c %s -o %t.d/asint.o 2>&1 | FileCheck %s --check-prefix=ASINT
//
// RUN: %run %t.d/prog set | FileCheck %s --check-prefix=SET
// RUN: %rerun %t.d/prog call | FileCheck %s
// RUN: %rerun %t.d/moved call | FileCheck %s
// RUN: %rerun %t.d/nopie call | FileCheck %s
// RUN: %amber check %t.heap
// RUN: not %rerun %t.d/removed call > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=GONE < %t.err
//
// The -no-pie build writes, the PIE build reads (romulus as well).
// RUN: env AMBER_ENGINE=romulus %run %t.d/nopie set | FileCheck %s --check-prefix=SET
// RUN: env AMBER_ENGINE=romulus %rerun %t.d/prog call | FileCheck %s
//
// SET: set
// CHECK: fn(21) 42
// CHECK-NEXT: fn == twice 1
// CHECK-NEXT: cmp 1
// CHECK-NEXT: lib(-5) 5
// CHECK-NEXT: out(5) 10
// CHECK-NEXT: copy fn(4) 8 cmp 1
// CHECK-NEXT: volatile copy fn(3) 6 lib(-2) 2
// CHECK-NEXT: in region fn(1) 2 same 1
// GONE: amber: error: called a function pointer read from the persistent heap whose function twice does not exist in this program
// GONE: amber: note: the program that stored it had that function
#include <amber.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#ifdef MOVED
/* Functions before the stored ones: the rebuild moves their addresses. */
long pad1(long x) { return x * 3 + 1; }
long pad2(long x) { return x * 5 + pad1(x); }
static long pad3(long x) { return x ^ 7; }
long (*volatile keep[3])(long) = {pad1, pad2, pad3};
#endif

#ifndef REMOVED
long twice(long x) { return 2 * x; }
#else
long thrice(long x) { return 3 * x; } /* twice is gone */
#endif
static int cmp_fn(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

struct cbs {
  long (*fn)(long);
  int (*cmp)(const void *, const void *);
  long (*lib)(long);
};
struct root {
  struct cbs c, copy, moved_in;
  long (*out)(long);
};

#ifdef ASINT
#include <stdint.h>
struct iroot {
  uintptr_t code;
};
void keep_as_int(struct iroot *ir) {
  ir->code = (uintptr_t)twice; // ASINT: fnptr.c:[[@LINE]]:{{[0-9]+}}: warning: amber: the address of function 'twice' is stored as an integer; in the persistent heap it stays a raw code address
}
#endif

/* A volatile struct copied into the heap by memcpy. */
struct cbs vol;

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  if (argc > 1 && !strcmp(argv[1], "set")) {
#ifndef REMOVED
    vol.fn = twice;
    vol.cmp = cmp_fn;
    vol.lib = (long (*)(long))dlsym(RTLD_DEFAULT, "labs");
    AMBER_ATOMIC {
      r->c.fn = twice;
      r->c.cmp = cmp_fn;
      r->c.lib = (long (*)(long))dlsym(RTLD_DEFAULT, "labs");
      r->copy = r->c;
      memcpy(&r->moved_in, &vol, sizeof vol);
    }
    r->out = twice; /* outside a region */
    amber_sync();
#endif
    printf("set\n");
    return 0;
  }
  int a = 2, b = 1;
  printf("fn(21) %ld\n", r->c.fn(21));
#ifndef REMOVED
  printf("fn == twice %d\n", r->c.fn == twice);
#endif
  printf("cmp %d\n", r->c.cmp(&a, &b));
  printf("lib(-5) %ld\n", r->c.lib(-5));
  printf("out(5) %ld\n", r->out(5));
  printf("copy fn(4) %ld cmp %d\n", r->copy.fn(4), r->copy.cmp(&a, &b));
  struct cbs local;
  memcpy(&local, &r->moved_in, sizeof local);
  printf("volatile copy fn(3) %ld lib(-2) %ld\n", local.fn(3), local.lib(-2));
  long got = 0;
  int same = 0;
  AMBER_ATOMIC {
    got = r->c.fn(1);
    same = r->copy.fn == r->c.fn;
  }
  printf("in region fn(1) %ld same %d\n", got, same);
  return 0;
}
