// The printf interceptors format heap strings exactly as libc formats a
// volatile copy of them: flags, widths and precisions (also from arguments
// and positional), every length modifier, %n into the heap, %m, wide
// strings, a format that lives in the heap, and sprintf/snprintf/asprintf
// into heap and volatile buffers.  Under mvcc the heap strings are copied
// out through the engine and the text is built one conversion at a time;
// under romulus libc runs unchanged.  Each line is checked against libc's
// own output for the volatile copy.
// RUN: %amber_cc -O2 %s -o %t
// asprintf(&r->strp, ...) outside regions leaves a pointer to libc's
// volatile buffer in the heap on purpose: the pointer check (on in the
// suite) is off here.
// RUN: env AMBER_CHECK_POINTERS=off %run %t | FileCheck %s
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=mvcc %run %t 2>/dev/null | FileCheck %s
#define _GNU_SOURCE
#include <amber.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

struct root {
  char s[32], t[32], fmt[64], out[128], small[8];
  wchar_t w[8];
  int n;
  char *strp;
};

static int bad;

/* Formatting the heap arguments and their volatile copies must agree. */
static void agree(const char *what, const char *a, int ka, const char *b, int kb) {
  if (ka == kb && !strcmp(a, b)) return;
  printf("MISMATCH %s: [%s] %d vs [%s] %d\n", what, a, ka, b, kb);
  bad++;
}

int main(void) {
  struct root *r = amber_root(sizeof *r);
  AMBER_ATOMIC {
    strcpy(r->s, "persistent");
    strcpy(r->t, "heap string two");
    strcpy(r->fmt, "fmt in heap: %s|%d\n");
    for (int i = 0; i < 4; i++) r->w[i] = L"wide"[i];
    r->w[4] = 0;
  }
  char vs[32], vt[32];
  strcpy(vs, "persistent");
  strcpy(vt, "heap string two");
  wchar_t vw[8] = L"wide";
  {
    const char *hs = r->s, *ht = r->t;
    const wchar_t *hw = r->w;
    char a[256], b[256];
    struct {
      const char *fmt;
    } cases[] = {{"%s"}, {"[%20s]"}, {"[%-20s]"}, {"[%.4s]"}, {"[%10.3s]"}, {"[%-10.0s]"}, {"%s and %s"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      int ka = snprintf(a, sizeof a, cases[i].fmt, hs, ht);
      int kb = snprintf(b, sizeof b, cases[i].fmt, vs, vt);
      agree(cases[i].fmt, a, ka, b, kb);
    }
    /* Widths and precisions from arguments, positional ones, mixed types. */
    int ka = snprintf(a, sizeof a, "%*.*s|%hhd|%hd|%ld|%lld|%zu|%jd|%td|%c|%5.2f|%Lg|%#x|%o|%e|%%|%p", 12, 5, hs, 300, 70000,
                      -5L, 1LL << 40, (size_t)7, (intmax_t)-9, (ptrdiff_t)3, 'q', 3.14159, (long double)2.5, 255, 8, 1e-3,
                      (void *)hs);
    int kb = snprintf(b, sizeof b, "%*.*s|%hhd|%hd|%ld|%lld|%zu|%jd|%td|%c|%5.2f|%Lg|%#x|%o|%e|%%|%p", 12, 5, vs, 300, 70000,
                      -5L, 1LL << 40, (size_t)7, (intmax_t)-9, (ptrdiff_t)3, 'q', 3.14159, (long double)2.5, 255, 8, 1e-3,
                      (void *)hs);
    agree("mixed", a, ka, b, kb);
    ka = snprintf(a, sizeof a, "%2$s-%1$*3$d-%2$.3s-%4$ls", 42, hs, 6, hw);
    kb = snprintf(b, sizeof b, "%2$s-%1$*3$d-%2$.3s-%4$ls", 42, vs, 6, vw);
    agree("positional", a, ka, b, kb);
    ka = snprintf(a, sizeof a, "[%8ls|%-6.2ls]", hw, hw);
    kb = snprintf(b, sizeof b, "[%8ls|%-6.2ls]", vw, vw);
    agree("wide", a, ka, b, kb);
    errno = ENOENT;
    ka = snprintf(a, sizeof a, "%s: %m", hs);
    errno = ENOENT;
    kb = snprintf(b, sizeof b, "%s: %m", vs);
    agree("%m", a, ka, b, kb);
    /* Truncation and the returned length. */
    ka = snprintf(a, 6, "%s!", hs);
    kb = snprintf(b, 6, "%s!", vs);
    agree("truncated", a, ka, b, kb);
    printf("snprintf cases %s\n", bad ? "differ" : "agree");
    /* To stdout: through printf, fprintf, dprintf. */
    printf("printf [%s] [%-12.6s]\n", hs, ht);
    fprintf(stdout, "fprintf [%s]\n", ht);
    fflush(stdout);
    dprintf(1, "dprintf [%s]\n", hs);
    /* Into the heap: sprintf, snprintf (truncated), %n into the heap. */
    sprintf(r->out, "%s+%s%n", hs, ht, &r->n);
    int k = snprintf(r->small, sizeof r->small, "%s", hs);
    char *p = NULL;
    asprintf(&p, "asprintf [%s]", ht);
    printf("sprintf [%s] n %d snprintf [%s] %d %s\n", r->out, r->n, r->small, k, p);
    free(p);
    asprintf(&r->strp, "%s", hs); /* the pointer itself lands in the heap */
    printf("strp [%s]\n", r->strp);
    free(r->strp);
    /* A format in the heap. */
    printf(r->fmt, hs, 7);
  }
  return bad != 0;
}
// CHECK: snprintf cases agree
// CHECK-NEXT: printf [persistent] [heap s      ]
// CHECK-NEXT: fprintf [heap string two]
// CHECK-NEXT: dprintf [persistent]
// CHECK-NEXT: sprintf [persistent+heap string two] n 26 snprintf [persist] 10 asprintf [heap string two]
// CHECK-NEXT: strp [persistent]
// CHECK-NEXT: fmt in heap: persistent|7
