// The scanf interceptors: input strings, formats and destinations in the
// heap (strict mode: libc itself never touches the canonical window), on
// both engines, outside regions (each call one store outside regions) and
// inside them (the stores join the region's transaction, and an aborted
// region leaves nothing).  Conversions that fail leave their heap
// destinations as they were; %n only where reached.  A second run sees
// what the first stored.
// RUN: %amber_cc -O2 %s -o %t
// %ms into a heap pointer outside regions leaves a pointer to libc's
// volatile buffer in the heap on purpose: the pointer check (on in the
// suite) is off here.
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=romulus %run %t scan < %S/Inputs/scanf_input.txt | FileCheck %s
// RUN: env AMBER_CHECK_POINTERS=off %rerun %t show | FileCheck %s --check-prefix=SHOW
// RUN: %amber check %t.heap
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=mvcc %run %t scan < %S/Inputs/scanf_input.txt | FileCheck %s
// RUN: env AMBER_CHECK_POINTERS=off %rerun %t show | FileCheck %s --check-prefix=SHOW
// RUN: %amber check %t.heap
// The calls go to glibc's C99 names (what <stdio.h> asks for) ... (the
// program's object: the linked program defines them, since amber-cc links
// the runtime and its interceptors into it)
// RUN: %amber_cc -O2 -c %s -o %t.o
// RUN: nm %t.o | FileCheck %s --check-prefix=NM
// NM: U __isoc99_fscanf
// NM: U __isoc99_scanf
// NM: U __isoc99_sscanf
// NM: U __isoc99_vsscanf
// ... and the GNU ones (-std=gnu89 without _GNU_SOURCE's C99 default still
// uses them in glibc 2.36; dlsym reaches them in any case) are served too.
// RUN: %amber_cc -O2 -DGNU_NAMES %s -o %t.gnu
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=mvcc %run %t.gnu scan < %S/Inputs/scanf_input.txt | FileCheck %s
#include <amber.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

struct root {
  int i, n, untouched, pos_a;
  long l;
  short h;
  double d;
  char word[16], set[16], three[4], line[64], fmt[32];
  char *alloc;
  wchar_t wide[8];
  unsigned char hh;
  long aborted; /* set in a region */
};

#ifdef GNU_NAMES
/* The plain names, looked up as a library built against an old glibc
 * would bind them. */
static int (*sscanf_p)(const char *, const char *, ...);
static int (*vsscanf_p)(const char *, const char *, va_list);
static int (*fscanf_p)(FILE *, const char *, ...);
static int (*scanf_p)(const char *, ...);
#define sscanf sscanf_p
#define vsscanf vsscanf_p
#define fscanf fscanf_p
#define scanf scanf_p
#endif

static int vscan(const char *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vsscanf(s, fmt, ap);
  va_end(ap);
  return r;
}

static void show(const struct root *r, int with_alloc) {
  printf("i=%d l=%ld h=%d d=%.2f word=%s three=%.3s n=%d set=%s untouched=%d pos_a=%d alloc=%s wide=%ls hh=%u "
         "aborted=%ld\n",
         r->i, r->l, r->h, r->d, r->word, r->three, r->n, r->set, r->untouched, r->pos_a, with_alloc && r->alloc ? r->alloc : "-",
         r->wide, r->hh, r->aborted);
}

int main(int argc, char **argv) {
#ifdef GNU_NAMES
  sscanf_p = (int (*)(const char *, const char *, ...))dlsym(RTLD_DEFAULT, "sscanf");
  vsscanf_p = (int (*)(const char *, const char *, va_list))dlsym(RTLD_DEFAULT, "vsscanf");
  fscanf_p = (int (*)(FILE *, const char *, ...))dlsym(RTLD_DEFAULT, "fscanf");
  scanf_p = (int (*)(const char *, ...))dlsym(RTLD_DEFAULT, "scanf");
#endif
  struct root *r = amber_root(sizeof *r);
  if (!strcmp(argv[1], "show")) {
    show(r, 0); /* alloc is libc's volatile memory: gone */
    return 0;
  }
  r->untouched = 77;
  r->n = -5;

  /* Outside regions: volatile input, heap destinations of every kind. */
  int k = sscanf("12 -3400000000 7 2.50 hello abcdef", "%d %ld %hd %lf %15s %3c%n", &r->i, &r->l, &r->h, &r->d, r->word,
                 r->three, &r->n);
  // CHECK: outside k=6
  printf("outside k=%d\n", k);
  // CHECK-NEXT: i=12 l=-3400000000 h=7 d=2.50 word=hello three=abc n=31 set= untouched=77
  show(r, 1);

  /* A failing conversion leaves its destination; a %n after it is not
   * reached. */
  k = sscanf("5 x", "%d %d%n", &r->i, &r->untouched, &r->n);
  // CHECK-NEXT: failing k=1
  printf("failing k=%d\n", k);
  // CHECK-NEXT: i=5 {{.*}} n=31 set= untouched=77
  show(r, 1);
  k = sscanf("", "%d", &r->i);
  // CHECK-NEXT: empty k=-1 i=5
  printf("empty k=%d i=%d\n", k, r->i);

  /* Input and format in the heap, scan sets, %ms into a heap pointer,
   * positional arguments, wide strings, %hhu. */
  AMBER_ATOMIC {
    strcpy(r->line, "lower UPPER 300 9 wide 250");
    strcpy(r->fmt, "%[a-z] %ms");
  }
  int vol = 0;
  k = sscanf(r->line, "%15[a-z] %ms %d %d", r->set, &r->alloc, &r->pos_a, &vol);
  // CHECK-NEXT: heap input k=4 vol=9
  printf("heap input k=%d vol=%d\n", k, vol);
  k = sscanf("7 8", "%2$d %1$d", &r->i, &r->pos_a);
  // CHECK-NEXT: positional k=2 i=8 pos_a=7
  printf("positional k=%d i=%d pos_a=%d\n", k, r->i, r->pos_a);
  char vset[16];
  k = vscan(r->line, r->fmt, vset, &r->alloc); /* the format in the heap; %ms again: the old string leaks, as in libc */
  // CHECK-NEXT: heap format k=2 vset=lower alloc=UPPER
  printf("heap format k=%d vset=%s alloc=%s\n", k, vset, r->alloc);
  k = sscanf("wide 250", "%7ls %hhu", r->wide, &r->hh);
  // CHECK-NEXT: wide k=2
  printf("wide k=%d\n", k);

  /* Inside a region: the stores join its transaction. */
  AMBER_ATOMIC {
    k = sscanf("41 region", "%ld %15s", &r->aborted, r->word);
    r->aborted += 1000;
  }
  // CHECK-NEXT: region k=2 aborted=1041 word=region
  printf("region k=%d aborted=%ld word=%s\n", k, r->aborted, r->word);

  /* Streams: fscanf from a file, scanf from stdin. */
  FILE *f = tmpfile();
  fputs("1234 file\n", f);
  rewind(f);
  k = fscanf(f, "%d %15s", &r->i, r->word);
  fclose(f);
  // CHECK-NEXT: fscanf k=2 i=1234 word=file
  printf("fscanf k=%d i=%d word=%s\n", k, r->i, r->word);
  k = scanf("%lf %15[^\n]", &r->d, r->set);
  // CHECK-NEXT: scanf k=2 d=3.25 set=from stdin
  printf("scanf k=%d d=%.2f set=%s\n", k, r->d, r->set);
  // CHECK-NEXT: i=1234 l=-3400000000 h=7 d=3.25 word=file three=abc n=31 set=from stdin untouched=77 pos_a=7 alloc=UPPER wide=wide hh=250 aborted=1041
  show(r, 1);
  return 0;
}
// SHOW: i=1234 l=-3400000000 h=7 d=3.25 word=file three=abc n=31 set=from stdin untouched=77 pos_a=7 alloc=- wide=wide hh=250 aborted=1041
