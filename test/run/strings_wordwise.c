// The string and memory readers inside regions (strncmp, strcmp, memcmp,
// strlen, strnlen, strchr, strrchr, memchr) read what the engine isolates
// (ordinary memory under mvcc, the heap) a word at a time (runtime/entry/
// libc.c, struct rd; issue 22: genome's strncmp was one engine read a
// byte).  Every start offset within a word, every length up to 20, strings
// that differ at each position, in ordinary memory and in the heap, on both
// engines: the same answers as libc outside regions.  A string that ends at
// the last byte before an inaccessible page is read without a fault (the
// reader never crosses its last aligned word).
// RUN: %amber_cc -O2 %s -o %t
// RUN: %run %t | FileCheck %s
// RUN: env AMBER_ENGINE=romulus %run %t | FileCheck %s
// CHECK: ordinary: {{[0-9]+}} checks, 0 wrong
// CHECK: heap: {{[0-9]+}} checks, 0 wrong
// CHECK: page end: ok
#include <amber.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int sgn(long x) { return (x > 0) - (x < 0); }

/* Compares each reader inside a region with libc's answer outside. */
static long check(const char *a, const char *b, size_t n, long *wrong) {
  /* Outside regions ordinary memory is read in place by libc; the heap
   * through the engine, which is right too. */
  int ref_ncmp = sgn(strncmp(a, b, n)), ref_cmp = sgn(strcmp(a, b)), ref_mcmp = sgn(memcmp(a, b, n));
  size_t ref_len = strlen(a), ref_nlen = strnlen(a, n);
  const char *ref_chr = strchr(a, 'q'), *ref_rchr = strrchr(a, 'q'), *ref_mchr = memchr(a, 'q', n);
  int ncmp, cmp, mcmp;
  size_t len, nlen;
  const char *chr, *rchr, *mchr;
  AMBER_ATOMIC {
    ncmp = sgn(strncmp(a, b, n));
    cmp = sgn(strcmp(a, b));
    mcmp = sgn(memcmp(a, b, n));
    len = strlen(a);
    nlen = strnlen(a, n);
    chr = strchr(a, 'q');
    rchr = strrchr(a, 'q');
    mchr = memchr(a, 'q', n);
  }
  int bad = ncmp != ref_ncmp || cmp != ref_cmp || mcmp != ref_mcmp || len != ref_len || nlen != ref_nlen ||
            chr != ref_chr || rchr != ref_rchr || mchr != ref_mchr;
  if (bad && *wrong < 5)
    printf("wrong: a=\"%s\" b=\"%s\" n=%zu: strncmp %d/%d strcmp %d/%d memcmp %d/%d strlen %zu/%zu\n", a, b, n, ncmp,
           ref_ncmp, cmp, ref_cmp, mcmp, ref_mcmp, len, ref_len);
  *wrong += bad;
  return 1;
}

/* a and b: 64 bytes each; strings of every length at every offset. */
static void sweep(const char *what, char *a, char *b) {
  long checks = 0, wrong = 0;
  for (int off = 0; off < 8; off++)
    for (int len = 0; len <= 20; len++)
      for (int diff = -1; diff < len; diff++) {
        char sa[64], sb[64];
        for (int i = 0; i < len; i++) sa[i] = sb[i] = (char)('a' + (i * 7 + off) % 26);
        sa[len] = sb[len] = 0;
        if (diff >= 0) sb[diff] = sb[diff] == 'q' ? 'r' : 'q';
        AMBER_ATOMIC {
          memcpy(a + off, sa, len + 1);
          memcpy(b + off, sb, len + 1);
        }
        for (size_t n = 0; n <= (size_t)len + 1; n += (n < 3 ? 1 : 5)) checks += check(a + off, b + off, n, &wrong);
      }
  printf("%s: %ld checks, %ld wrong\n", what, checks, wrong);
}

static char va[64], vb[64];

int main(void) {
  sweep("ordinary", va, vb);
  char *ha, *hb;
  AMBER_ATOMIC {
    ha = malloc(64);
    hb = malloc(64);
  }
  sweep("heap", ha, hb);
  long pg = sysconf(_SC_PAGESIZE);
  char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED || mprotect(m + pg, pg, PROT_NONE)) return 1;
  char *s = m + pg - 5; /* "abcd" and its terminator fill the page's last 5 bytes */
  memcpy(s, "abcd", 5);
  size_t len;
  int c;
  AMBER_ATOMIC {
    len = strlen(s);
    c = strcmp(s, "abcd") | strncmp(s, "abcd", 10);
  }
  printf("page end: %s\n", len == 4 && c == 0 ? "ok" : "WRONG");
  return 0;
}
