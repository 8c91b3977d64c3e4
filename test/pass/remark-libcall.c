// A call to a library function libamber does not intercept (libc and libm
// as LLVM knows them, zlib) with a pointer argument that may point into the
// persistent heap gets a remark at its file:line (pass "amber-libcall"),
// which amber-cc shows by default and -Rno-pass-analysis hides.  No remark
// where the pointers are provably the stack or globals, for intercepted
// functions (strlen, sscanf, printf, ...), or for functions of the program
// defined in another file (maybe amber-instrumented), or for a stdio
// function's FILE * argument (the C library allocates every FILE).
// RUN: %amber_cc -O1 -c %s -o %t.o 2>&1 | FileCheck %s --implicit-check-not=remark:
// RUN: %amber_cc -O0 -c %s -o %t.o 2>&1 | FileCheck %s --implicit-check-not=remark:
// RUN: %amber_cc -O1 -c %s -o %t.o -Rno-pass-analysis 2>&1 | count 0
// RUN: %clang -O1 -g -I%amber_include -fpass-plugin=%amber_pass -Rpass-analysis=amber-libcall -c %s -o %t.o 2>&1 | FileCheck %s --implicit-check-not=remark:
#include <amber.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct root {
  double v[2];
  char s[16];
};
unsigned long crc32(unsigned long crc, const unsigned char *buf, unsigned len); /* zlib.h */
void elsewhere(const char *p); /* the program's own, in another file */
static char global[16];

double use(struct root *r) {
  char local[16];
  int e;
  double x = 0;
  // CHECK: remark-libcall.c:[[@LINE+1]]:{{[0-9]+}}: remark: call to frexp may pass persistent memory (argument 2) to a library function libamber does not intercept: in strict mode its access faults at run time; copy the data to a local buffer first (docs/wrappers.md) [-Rpass-analysis=amber-libcall]
  x += frexp(r->v[0], (int *)&r->v[1]);
  // CHECK: remark-libcall.c:[[@LINE+1]]:{{[0-9]+}}: remark: call to crc32 may pass persistent memory (argument 2)
  x += crc32(0, (const unsigned char *)r->s, 4);
  // CHECK: remark-libcall.c:[[@LINE+1]]:{{[0-9]+}}: remark: call to modf may pass persistent memory (argument 2)
  x += modf(x, &r->v[1]);
  x += frexp(x, &e); /* the stack */
  strcpy(local, "1.5");
  x += strtod(local, NULL);
  x += strtod(global, NULL); /* a global */
  x += (double)strlen(r->s); /* intercepted */
  int n = 0;
  sscanf(r->s, "%d", &n); /* intercepted */
  printf("%s\n", r->s);   /* intercepted */
  elsewhere(r->s);        /* maybe amber code */
  fflush(stdout);         /* a FILE is the C library's, never the heap's */
  FILE *f = fopen("/dev/null", "r");
  if (f) {
    x += fgetc(f) + ftell(f) + fileno(f);
    clearerr(f);
    fputc('x', f);
    fclose(f);
  }
  // CHECK: remark-libcall.c:[[@LINE+1]]:{{[0-9]+}}: remark: call to fgetpos may pass persistent memory (argument 2)
  fgetpos(stdout, (fpos_t *)r->s); /* its other pointer is still checked */
  AMBER_ATOMIC {
    // CHECK: remark-libcall.c:[[@LINE+1]]:{{[0-9]+}}: remark: call to frexp may pass persistent memory (argument 2)
    r->v[0] = frexp(r->v[0], (int *)&r->v[1]);
  }
  return x + n;
}
