// Every intercepted libc function of string.h, strings.h and stdlib.h's
// conversions, qsort, qsort_r and bsearch works on persistent memory, under
// strict mode (the default: libc itself cannot read or write the heap's
// window, so without its interceptor each of these calls stops the
// program), outside regions and inside one, on both engines.  Each call
// on persistent data is checked against the same call on a volatile copy
// of the data (result, end position, the bytes written).  Inside a region
// the calls read the region's own uncommitted writes; qsort's comparator is
// instrumented code that reads persistent records; a qsort outside a region
// survives a kill -9 right after it.
// RUN: %clang -O1 -c %S/Inputs/plain_cmp.c -o %t.cmp.o
// RUN: %amber_cc -O0 -fno-builtin %s %t.cmp.o -o %t.O0
// RUN: %amber_cc -O2 %s %t.cmp.o -o %t.O2
// RUN: %amber_cc -O2 -D_FORTIFY_SOURCE=2 %s %t.cmp.o -o %t.fort
// strtok_r with its saveptr in the heap and the string on the stack stores
// a stack pointer into the heap on purpose ("strtok_r volatile"): the
// pointer check (on in the suite) would stop it, so it is off here.
// RUN: env AMBER_CHECK_POINTERS=off %run %t.O0 outside | FileCheck %s
// RUN: env AMBER_CHECK_POINTERS=off %rerun %t.O0 region | FileCheck %s --check-prefixes=CHECK,REGION
// RUN: %amber check %t.heap
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=romulus %run %t.O0 outside | FileCheck %s
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=romulus %rerun %t.O0 region | FileCheck %s --check-prefixes=CHECK,REGION
// RUN: %amber check %t.heap
// RUN: env AMBER_CHECK_POINTERS=off %rerun %t.O0 fuzz | FileCheck %s
// RUN: env AMBER_CHECK_POINTERS=off %rerun %t.O0 fuzz-region | FileCheck %s
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=romulus %run %t.O0 fuzz | FileCheck %s
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=romulus %rerun %t.O0 fuzz-region | FileCheck %s
// With AMBER_STRICT=0 (libc could read the window, not write it) the same.
// RUN: env AMBER_CHECK_POINTERS=off AMBER_STRICT=0 %run %t.O0 outside | FileCheck %s
// RUN: env AMBER_CHECK_POINTERS=off %run %t.O2 outside | FileCheck %s
// RUN: env AMBER_CHECK_POINTERS=off %rerun %t.O2 region | FileCheck %s --check-prefixes=CHECK,REGION
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=romulus %run %t.fort outside | FileCheck %s
// RUN: env AMBER_CHECK_POINTERS=off %run %t.fort region | FileCheck %s --check-prefixes=CHECK,REGION
// qsort outside a region, then kill -9: the sorted array is there after
// recovery (and a sorted array is not written again).
// RUN: not --crash env AMBER_CHECK_POINTERS=off %run %t.O0 sort-kill
// RUN: env AMBER_CHECK_POINTERS=off %rerun %t.O0 sorted | FileCheck %s --check-prefix=SORTED
// RUN: %amber check %t.heap
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=romulus not --crash %run %t.O0 sort-kill
// RUN: env AMBER_CHECK_POINTERS=off AMBER_ENGINE=romulus %rerun %t.O0 sorted | FileCheck %s --check-prefix=SORTED
// RUN: %amber check %t.heap
// CHECK-NOT: FAIL
// REGION: own writes seen
// CHECK: libc coverage: [[N:[0-9]+]] checks, 0 failed
// SORTED: sorted after kill: 1, first -40, last 23
#define _GNU_SOURCE
#include <amber.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Declared by glibc's headers only under other feature macros or with
 * _FORTIFY_SOURCE: called directly so that each interceptor is reached
 * whatever the compiler does with the plain names. */
int __xpg_strerror_r(int err, char *buf, size_t n);
/* Inputs/plain_cmp.c, compiled without the pass. */
int plain_cmp_long(const void *a, const void *b);
int plain_key_first_long(const void *key, const void *elem);
char *__stpcpy_chk(char *dst, const char *src, size_t dstlen);
char *__stpncpy_chk(char *dst, const char *src, size_t n, size_t dstlen);
void *__mempcpy_chk(void *dst, const void *src, size_t n, size_t dstlen);
char *__strncat_chk(char *dst, const char *src, size_t n, size_t dstlen);
void __explicit_bzero_chk(void *dst, size_t n, size_t dstlen);
long long strtoq(const char *s, char **end, int base);
unsigned long long strtouq(const char *s, char **end, int base);

struct rec {
  long key;
  char name[8];
};

struct data {
  char nums[160];
  char words[96];
  char hay[1100]; /* the needle crosses a 256-byte piece boundary */
  char mixed[64], upper[64];
  char path[48];
  char vers[2][16];
  char buf[160], buf2[160];
  char *end, *save, *sp; /* endptr / saveptr / stringp that live in the heap */
  unsigned char raw[300];
  long arr[40];
  struct rec recs[12];
  struct rec *byptr[12];
  char own[32];
};

struct root {
  struct data d;
  char fuzz_area[600];
  long sorted[40];
  int sorted_ready;
};

static int checks, fails;
#define CHECK(name, cond)                                                                          \
  do {                                                                                             \
    checks++;                                                                                      \
    if (!(cond)) {                                                                                 \
      fails++;                                                                                     \
      printf("FAIL %s (line %d)\n", name, __LINE__);                                             \
    }                                                                                              \
  } while (0)

static void fill(struct data *d) {
  memset(d, 0, sizeof *d);
  strcpy(d->nums, "  \t-12345xyz 0x1fG 077 +9999999999999999999999 3.25e2q -0x1.8p1 inf nan(abc) 1e");
  strcpy(d->words, "alpha,beta;;gamma delta,,epsilon");
  for (int i = 0; i < (int)sizeof d->hay - 1; i++) d->hay[i] = (char)('a' + i % 7);
  memcpy(d->hay + 250, "NEEDLEneedle", 12); /* crosses offset 256 */
  d->hay[sizeof d->hay - 1] = 0;
  strcpy(d->mixed, "Hello World Of Amber");
  strcpy(d->upper, "HELLO WORLD OF AMBEr");
  strcpy(d->path, "/usr/lib/amber/libamber.so");
  strcpy(d->vers[0], "file9.txt");
  strcpy(d->vers[1], "file10.txt");
  for (int i = 0; i < (int)sizeof d->raw; i++) d->raw[i] = (unsigned char)(i * 7 + 3);
  d->raw[280] = 0xEE;
  d->raw[20] = 0xEE;
  for (int i = 0; i < 40; i++) d->arr[i] = (i * 37) % 64 - 40;
  for (int i = 0; i < 12; i++) {
    d->recs[i].key = (i * 5) % 12;
    snprintf(d->recs[i].name, sizeof d->recs[i].name, "r%d", i);
  }
}

/* Pointers into the persistent (p) and volatile (v) copies agree when they
 * are at the same offset (or both NULL). */
#define SAME_AT(p, pbase, v, vbase) ((!(p) && !(v)) || ((p) && (v) && (const char *)(p) - (const char *)(pbase) == (const char *)(v) - (const char *)(vbase)))

static int by_value(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static int by_char(const void *a, const void *b) { return *(const char *)a - *(const char *)b; }

static int by_value_r(const void *a, const void *b, void *dir) {
  return *(int *)dir * by_value(a, b);
}

/* Instrumented code that reads persistent records through the pointers it
 * is given (the elements themselves are volatile copies). */
static int by_rec_key(const void *a, const void *b) {
  const struct rec *x = *(struct rec *const *)a, *y = *(struct rec *const *)b;
  return (x->key > y->key) - (x->key < y->key);
}

static int rec_cmp(const void *key, const void *elem) {
  long k = *(const long *)key, e = ((const struct rec *)elem)->key;
  return (k > e) - (k < e);
}

static void searches(struct data *p, struct data *v) {
  CHECK("strstr", SAME_AT(strstr(p->hay, "NEEDLEneedle"), p, strstr(v->hay, "NEEDLEneedle"), v));
  CHECK("strstr miss", strstr(p->hay, "zz") == NULL);
  CHECK("strstr volatile haystack", SAME_AT(strstr(v->hay, p->hay + 250), v, strstr(v->hay, v->hay + 250), v));
  CHECK("memmem volatile haystack", SAME_AT(memmem(v->raw, sizeof v->raw, p->raw + 281, 3), v, memmem(v->raw, sizeof v->raw, v->raw + 281, 3), v));
  CHECK("strspn volatile string", strspn(v->nums, p->nums) == strspn(v->nums, v->nums));
  CHECK("strstr heap needle", SAME_AT(strstr(p->words, p->words + 6), p, strstr(v->words, v->words + 6), v));
  CHECK("strcasestr", SAME_AT(strcasestr(p->hay, "needleNEEDLE"), p, strcasestr(v->hay, "needleNEEDLE"), v));
  CHECK("memmem", SAME_AT(memmem(p->hay, sizeof p->hay, "LEnee", 5), p, memmem(v->hay, sizeof v->hay, "LEnee", 5), v));
  CHECK("memmem raw", SAME_AT(memmem(p->raw, sizeof p->raw, p->raw + 281, 3), p, memmem(v->raw, sizeof v->raw, v->raw + 281, 3), v));
  CHECK("strspn", strspn(p->nums, " \t-") == strspn(v->nums, " \t-"));
  CHECK("strspn heap set", strspn(p->hay, p->hay + 1) == strspn(v->hay, v->hay + 1));
  CHECK("strcspn", strcspn(p->words, ";") == strcspn(v->words, ";") && strcspn(p->hay, "N") == 250);
  CHECK("strpbrk", SAME_AT(strpbrk(p->words, " ;"), p, strpbrk(v->words, " ;"), v) && !strpbrk(p->words, "#"));
  CHECK("strchrnul", SAME_AT(strchrnul(p->words, 'g'), p, strchrnul(v->words, 'g'), v) &&
                         SAME_AT(strchrnul(p->words, '#'), p, strchrnul(v->words, '#'), v));
  CHECK("index", SAME_AT(index(p->path, 'a'), p, index(v->path, 'a'), v) && SAME_AT(index(p->path, 0), p, index(v->path, 0), v));
  CHECK("rindex", SAME_AT(rindex(p->path, '/'), p, rindex(v->path, '/'), v) && !rindex(p->path, '#'));
  CHECK("rawmemchr", SAME_AT(rawmemchr(p->raw, 0xEE), p, rawmemchr(v->raw, 0xEE), v));
  CHECK("__memcmpeq", __memcmpeq(p->hay, v->hay, sizeof p->hay) == 0 && __memcmpeq(p->hay, p->mixed, 8) != 0);
  CHECK("memrchr", SAME_AT(memrchr(p->raw, 0xEE, sizeof p->raw), p, memrchr(v->raw, 0xEE, sizeof v->raw), v));
  CHECK("basename", SAME_AT(basename(p->path), p, basename(v->path), v));
}

static int sign(int x) { return (x > 0) - (x < 0); }

static void collation(struct data *p, struct data *v) {
  locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  CHECK("strcasecmp", sign(strcasecmp(p->mixed, p->upper)) == sign(strcasecmp(v->mixed, v->upper)) &&
                          strcasecmp(p->mixed, "hello world of amber") == 0);
  CHECK("strncasecmp", strncasecmp(p->mixed, p->upper, 19) == 0 &&
                           sign(strncasecmp(p->mixed, p->upper, 20)) == sign(strncasecmp(v->mixed, v->upper, 20)));
  CHECK("strcasecmp_l", strcasecmp_l(p->mixed, "HELLO world of amber", c) == 0);
  CHECK("strncasecmp_l", strncasecmp_l(p->upper, "hello", 5, c) == 0);
  CHECK("strcoll", sign(strcoll(p->mixed, p->upper)) == sign(strcoll(v->mixed, v->upper)));
  CHECK("strcoll_l", sign(strcoll_l(p->vers[0], p->vers[1], c)) == sign(strcoll_l(v->vers[0], v->vers[1], c)));
  CHECK("strverscmp", strverscmp(p->vers[0], p->vers[1]) < 0 && strverscmp(v->vers[0], v->vers[1]) < 0);
  size_t a = strxfrm(p->buf, p->mixed, sizeof p->buf), b = strxfrm(v->buf, v->mixed, sizeof v->buf);
  CHECK("strxfrm", a == b && memcmp(p->buf, v->buf, a + 1) == 0);
  a = strxfrm_l(p->buf2, p->upper, sizeof p->buf2, c), b = strxfrm_l(v->buf2, v->upper, sizeof v->buf2, c);
  CHECK("strxfrm_l", a == b && memcmp(p->buf2, v->buf2, a + 1) == 0);
  freelocale(c);
}

static void tokens(struct data *p, struct data *v) {
  char *pt, *vt;
  int same = 1;
  /* strtok on the persistent copy, then on the volatile one (strtok keeps one position). */
  char ptoks[8][16] = {{0}}, vtoks[8][16] = {{0}};
  int np = 0, nv = 0;
  for (pt = strtok(p->words, ",; "); pt && np < 8; pt = strtok(NULL, ",; ")) snprintf(ptoks[np++], 16, "%s@%ld", pt, (long)(pt - p->words));
  for (vt = strtok(v->words, ",; "); vt && nv < 8; vt = strtok(NULL, ",; ")) snprintf(vtoks[nv++], 16, "%s@%ld", vt, (long)(vt - v->words));
  same = np == nv && np == 5 && memcmp(ptoks, vtoks, sizeof ptoks) == 0 && memcmp(p->words, v->words, sizeof p->words) == 0;
  CHECK("strtok", same);
  /* strtok_r with the position in the heap, on a fresh string */
  strcpy(p->buf, "one two  three");
  strcpy(v->buf, "one two  three");
  char *vs;
  same = 1;
  for (pt = strtok_r(p->buf, " ", &p->save), vt = strtok_r(v->buf, " ", &vs); pt || vt;
       pt = strtok_r(NULL, " ", &p->save), vt = strtok_r(NULL, " ", &vs))
    same &= SAME_AT(pt, p, vt, v) && SAME_AT(p->save, p, vs, v);
  CHECK("strtok_r", same && memcmp(p->buf, v->buf, 15) == 0);
  strcpy(p->buf2, "x:y");
  strcpy(v->buf2, "x:y");
  pt = __strtok_r(p->buf2, ":", &vs);
  CHECK("__strtok_r", pt == p->buf2 && vs == p->buf2 + 2 && p->buf2[1] == 0);
  /* strsep with the string pointer in the heap */
  strcpy(p->buf, "a,,b");
  strcpy(v->buf, "a,,b");
  p->sp = p->buf;
  char *vsp = v->buf;
  same = 1;
  for (int i = 0; i < 4; i++) {
    pt = strsep(&p->sp, ",");
    vt = strsep(&vsp, ",");
    same &= SAME_AT(pt, p, vt, v) && SAME_AT(p->sp, p, vsp, v);
  }
  CHECK("strsep", same && memcmp(p->buf, v->buf, 5) == 0);
  /* volatile strings with a heap position or a heap delimiter set */
  char line[16] = "k1=v1;k2", delims[4];
  strcpy(p->buf2, "=;");
  pt = strtok_r(line, p->buf2, &p->save);
  CHECK("strtok_r volatile", pt == line && !strcmp(pt, "k1") && p->save == line + 3);
  pt = strtok_r(NULL, p->buf2, &p->save);
  CHECK("strtok_r volatile next", pt == line + 3 && !strcmp(pt, "v1") && p->save == line + 6);
  strcpy(delims, "=;");
  vsp = line + 6;
  pt = strsep(&vsp, p->buf2);
  CHECK("strsep volatile", pt == line + 6 && vsp == NULL && !strcmp(delims, p->buf2));
}

static void copies(struct data *p, struct data *v) {
  CHECK("stpcpy", SAME_AT(stpcpy(p->buf, p->mixed), p, stpcpy(v->buf, v->mixed), v) && !strcmp(p->buf, v->buf));
  CHECK("stpcpy from heap", stpcpy(v->buf2, p->path) == v->buf2 + strlen(v->path) && !strcmp(v->buf2, v->path));
  CHECK("__stpcpy", __stpcpy(p->buf, "abc") == p->buf + 3 && !strcmp(p->buf, "abc"));
  CHECK("stpncpy", SAME_AT(stpncpy(p->buf, p->path, 40), p, stpncpy(v->buf, v->path, 40), v) && !memcmp(p->buf, v->buf, 40));
  CHECK("__stpncpy", __stpncpy(p->buf, "xy", 5) == p->buf + 2 && !memcmp(p->buf, "xy\0\0\0", 5));
  CHECK("mempcpy", SAME_AT(mempcpy(p->buf, p->raw, 100), p, mempcpy(v->buf, v->raw, 100), v) && !memcmp(p->buf, v->buf, 100));
  CHECK("__mempcpy", __mempcpy(p->buf2, p->raw + 3, 7) == p->buf2 + 7 && !memcmp(p->buf2, v->raw + 3, 7));
  memset(v->buf2, 0, sizeof v->buf2);
  void *pm = memccpy(p->buf2, p->path, 'a', 40), *vm = memccpy(v->buf2, v->path, 'a', 40);
  CHECK("memccpy", SAME_AT(pm, p, vm, v) && !memcmp(p->buf2, v->buf2, 40) && !memccpy(p->buf2, p->path, '#', 5));
  bcopy(p->hay, p->buf, 100);
  bcopy(v->hay, v->buf, 100);
  CHECK("bcopy", !memcmp(p->buf, v->buf, 100));
  bzero(p->buf, 50);
  bzero(v->buf, 50);
  CHECK("bzero", !memcmp(p->buf, v->buf, 100));
  explicit_bzero(p->buf + 50, 10);
  explicit_bzero(v->buf + 50, 10);
  CHECK("explicit_bzero", !memcmp(p->buf, v->buf, 100));
  memfrob(p->raw, 64);
  memfrob(v->raw, 64);
  CHECK("memfrob", !memcmp(p->raw, v->raw, sizeof p->raw));
  strcpy(p->buf, "shuffled letters");
  strfry(p->buf);
  char fried[32], plain[32] = "shuffled letters";
  strcpy(fried, p->buf); /* the same letters, in some order */
  qsort(fried, strlen(fried), 1, by_char);
  qsort(plain, strlen(plain), 1, by_char);
  CHECK("strfry", !strcmp(fried, plain));
  /* an unknown error: glibc writes its message into the buffer */
  char *m = strerror_r(12345, p->buf, sizeof p->buf);
  CHECK("strerror_r", m == p->buf && !strcmp(m, strerror(12345)) && strerror_r(ENOENT, p->buf2, 8) != p->buf2);
  CHECK("__xpg_strerror_r", __xpg_strerror_r(EINVAL, p->buf2, sizeof p->buf2) == 0 && !strcmp(p->buf2, strerror(EINVAL)));
  CHECK("__stpcpy_chk", __stpcpy_chk(p->buf, p->path, sizeof p->buf) == p->buf + strlen(v->path) && !strcmp(p->buf, v->path));
  CHECK("__stpncpy_chk", __stpncpy_chk(p->buf, "pq", 4, sizeof p->buf) == p->buf + 2 && !memcmp(p->buf, "pq\0\0", 4));
  CHECK("__mempcpy_chk", __mempcpy_chk(p->buf, p->hay, 8, sizeof p->buf) == p->buf + 8 && !memcmp(p->buf, v->hay, 8));
  strcpy(p->buf, "cat:");
  CHECK("__strncat_chk", __strncat_chk(p->buf, p->path, 4, sizeof p->buf) == p->buf && !strcmp(p->buf, "cat:/usr"));
  __explicit_bzero_chk(p->buf, 3, sizeof p->buf);
  CHECK("__explicit_bzero_chk", !memcmp(p->buf, "\0\0\0:/usr", 9));
}

static void conversions(struct data *p, struct data *v) {
  locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  char *ve;
  int same = 1;
  /* Parse the whole text number by number, base 0, with the end in the heap. */
  const char *ps = p->nums, *vs = v->nums;
  for (int i = 0; i < 4; i++) {
    errno = 0;
    long a = strtol(ps, &p->end, 0);
    int ea = errno;
    errno = 0;
    long b = strtol(vs, &ve, 0);
    same &= a == b && ea == errno && SAME_AT(p->end, p, ve, v);
    ps = p->end + 1;
    vs = ve + 1;
  }
  CHECK("strtol", same);
  errno = 0;
  unsigned long long u1 = strtoull(p->nums + 23, &p->end, 10);
  CHECK("strtoull overflow", errno == ERANGE && u1 == ULLONG_MAX && p->end == p->nums + 46);
  CHECK("strtoul", strtoul(p->nums + 12, &p->end, 16) == strtoul(v->nums + 12, &ve, 16) && SAME_AT(p->end, p, ve, v));
  CHECK("strtoll", strtoll(p->nums, NULL, 10) == -12345 && strtoll(p->nums + 19, NULL, 8) == 077);
  CHECK("strtoq", strtoq(p->nums, NULL, 10) == -12345 && strtouq(p->nums + 12, NULL, 0) == 0x1f);
  CHECK("strtoimax", strtoimax(p->nums + 19, &p->end, 0) == 077 && p->end == p->nums + 22 && strtoumax(p->nums + 12, NULL, 0) == 0x1f);
  CHECK("strtol_l", strtol_l(p->nums, NULL, 10, c) == -12345 && strtoul_l(p->nums + 12, NULL, 16, c) == 0x1f &&
                        strtoll_l(p->nums, NULL, 10, c) == -12345 && strtoull_l(p->nums + 19, NULL, 8, c) == 077);
  CHECK("strtol volatile string", strtol(v->nums + 12, &p->end, 0) == 0x1f && p->end == v->nums + 17);
  CHECK("strtod volatile string", strtod(v->nums + 46, &p->end) == 325.0 && p->end == v->nums + 53);
  CHECK("no digits", strtol(p->words, &p->end, 10) == 0 && p->end == p->words);
  CHECK("atoi", atoi(p->nums) == -12345 && atol(p->nums) == -12345 && atoll(p->nums) == -12345);
  /* the floating-point tail: 3.25e2q -0x1.8p1 inf nan(abc) 1e */
  const char *pf = strstr(p->nums, "3.25"), *vf = strstr(v->nums, "3.25");
  CHECK("atof", atof(pf) == 325.0);
  same = 1;
  for (int i = 0; i < 5; i++) {
    double a = strtod(pf, &p->end), b = strtod(vf, &ve);
    same &= (a == b || (a != a && b != b)) && SAME_AT(p->end, p, ve, v);
    pf = p->end + (*ve == 'q' ? 2 : 1);
    vf = ve + (*ve == 'q' ? 2 : 1);
  }
  CHECK("strtod", same);
  CHECK("strtof", strtof(strstr(p->nums, "3.25"), &p->end) == 325.0f && strtof(strstr(v->nums, "3.25"), &ve) == 325.0f &&
                     SAME_AT(p->end, p, ve, v));
  CHECK("strtold", strtold(strstr(p->nums, "-0x"), NULL) == -3.0L);
  const char *f = strstr(p->nums, "3.25");
  CHECK("strtofN", strtof32(f, &p->end) == 325.0f && p->end == f + 6 && strtof64(f, NULL) == 325.0 && strtof32x(f, NULL) == 325.0 &&
                       strtof64x(f, NULL) == 325.0L);
  CHECK("strtofN_l", strtof32_l(f, NULL, c) == 325.0f && strtof64_l(f, NULL, c) == 325.0 && strtof32x_l(f, NULL, c) == 325.0 &&
                         strtof64x_l(f, NULL, c) == 325.0L);
  CHECK("strtod_l", strtod_l(strstr(p->nums, "inf"), NULL, c) > 1e308 && strtof_l(strstr(p->nums, "3.2"), NULL, c) == 325.0f &&
                        strtold_l(strstr(p->nums, "3.2"), NULL, c) == 325.0L);
  freelocale(c);
}

static void sorting(struct data *p, struct data *v) {
  qsort(p->arr, 40, sizeof p->arr[0], by_value);
  qsort(v->arr, 40, sizeof v->arr[0], by_value);
  CHECK("qsort", !memcmp(p->arr, v->arr, sizeof p->arr) && p->arr[0] == -40);
  int down = -1;
  qsort_r(p->arr, 40, sizeof p->arr[0], by_value_r, &down);
  qsort_r(v->arr, 40, sizeof v->arr[0], by_value_r, &down);
  CHECK("qsort_r", !memcmp(p->arr, v->arr, sizeof p->arr) && p->arr[0] == 23);
  for (int i = 0; i < 12; i++) p->byptr[i] = &p->recs[11 - i];
  qsort(p->byptr, 12, sizeof p->byptr[0], by_rec_key);
  int ok = 1;
  for (int i = 1; i < 12; i++) ok &= p->byptr[i - 1]->key <= p->byptr[i]->key;
  CHECK("qsort pointers", ok);
  qsort(p->recs, 12, sizeof p->recs[0], by_value); /* key first: sorts by key */
  qsort(v->recs, 12, sizeof v->recs[0], by_value);
  long k = 7, miss = 99;
  qsort(p->arr, 40, sizeof p->arr[0], plain_cmp_long);
  qsort(v->arr, 40, sizeof v->arr[0], plain_cmp_long);
  CHECK("qsort uninstrumented comparator", !memcmp(p->arr, v->arr, sizeof p->arr) && p->arr[0] == -40);
#ifndef __USE_EXTERN_INLINES /* else glibc's bsearch is inlined: the comparator must be instrumented */
  CHECK("bsearch uninstrumented comparator",
        SAME_AT(bsearch(&k, p->recs, 12, sizeof p->recs[0], plain_key_first_long), p, bsearch(&k, v->recs, 12, sizeof v->recs[0], rec_cmp), v));
#endif
  CHECK("bsearch", SAME_AT(bsearch(&k, p->recs, 12, sizeof p->recs[0], rec_cmp), p, bsearch(&k, v->recs, 12, sizeof v->recs[0], rec_cmp), v) &&
                       ((struct rec *)bsearch(&k, p->recs, 12, sizeof p->recs[0], rec_cmp))->key == 7 &&
                       !bsearch(&miss, p->recs, 12, sizeof p->recs[0], rec_cmp));
}


/* Seeded differential runs: random strings of number-like and delimiter
 * bytes, placed so that they cross the interceptors' 256-byte pieces, give
 * the same results on the heap as in volatile memory. */
struct fuzz {
  char text[600];
};

static unsigned long long rng = 88172645463325252ULL;
static unsigned next_rand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)rng;
}

static void fuzz(struct fuzz *p, int rounds) {
  static const char alphabet[] = " \t\n+-0123456789abcdefxXpPeE.infatyINFNAN()_,;:zZ";
  static struct fuzz v;
  for (int round = 0; round < rounds; round++) {
    size_t at = 200 + next_rand() % 100, len = next_rand() % 80;
    memset(&v, 0, sizeof v);
    for (size_t i = 0; i < len; i++) v.text[at + i] = alphabet[next_rand() % (sizeof alphabet - 1)];
    memcpy(p, &v, sizeof v);
    const char *ps = p->text + at, *vs = v.text + at;
    char *pe, *ve;
    int base = (int[]){0, 10, 16, 36, 8}[next_rand() % 5];
    errno = 0;
    long a = strtol(ps, &pe, base);
    int ea = errno;
    errno = 0;
    long b = strtol(vs, &ve, base);
    CHECK("fuzz strtol", a == b && ea == errno && SAME_AT(pe, p, ve, &v));
    errno = 0;
    double x = strtod(ps, &pe);
    ea = errno;
    errno = 0;
    double y = strtod(vs, &ve);
    CHECK("fuzz strtod", (x == y || (x != x && y != y)) && ea == errno && SAME_AT(pe, p, ve, &v));
    long double lx = strtold(ps, &pe), ly = strtold(vs, &ve);
    CHECK("fuzz strtold", (lx == ly || (lx != lx && ly != ly)) && SAME_AT(pe, p, ve, &v));
    char set[4] = {alphabet[next_rand() % 20], alphabet[next_rand() % 48], alphabet[next_rand() % 48], 0};
    CHECK("fuzz strspn", strspn(ps, set) == strspn(vs, set) && strcspn(ps, set) == strcspn(vs, set));
    CHECK("fuzz strpbrk", SAME_AT(strpbrk(ps, set), p, strpbrk(vs, set), &v));
    char needle[3] = {alphabet[next_rand() % 48], alphabet[next_rand() % 48], 0};
    CHECK("fuzz strstr", SAME_AT(strstr(p->text + 190, needle), p, strstr(v.text + 190, needle), &v) &&
                             SAME_AT(strcasestr(ps, needle), p, strcasestr(vs, needle), &v));
    CHECK("fuzz strcasecmp", sign(strcasecmp(ps, p->text + at + 1)) == sign(strcasecmp(vs, v.text + at + 1)) &&
                                 sign(strncasecmp(ps, needle, 2)) == sign(strncasecmp(vs, needle, 2)));
  }
}

static struct data vol;

static void all(struct data *p) {
  fill(&vol);
  fill(p);
  searches(p, &vol);
  collation(p, &vol);
  tokens(p, &vol);
  fill(&vol);
  fill(p);
  copies(p, &vol);
  fill(&vol);
  fill(p);
  conversions(p, &vol);
  sorting(p, &vol);
}

/* Inside a region the calls see the region's own writes, before commit. */
static void own_writes(struct data *p) {
  strcpy(p->own, "  4096 tail");
  char *e;
  long n = strtol(p->own, &e, 10);
  int q = atoi(p->own);
  char *t = strstr(p->own, "tail");
  if (n == 4096 && q == 4096 && e == p->own + 6 && t == p->own + 7 && strcasecmp(p->own + 7, "TAIL") == 0)
    printf("own writes seen\n");
  else
    printf("FAIL own writes: %ld %d\n", n, q);
}

int main(int argc, char **argv) {
  struct root *r = amber_root(sizeof *r);
  const char *mode = argc > 1 ? argv[1] : "";
  if (!strcmp(mode, "outside")) {
    all(&r->d);
  } else if (!strcmp(mode, "region")) {
    AMBER_ATOMIC {
      all(&r->d);
      own_writes(&r->d);
    }
  } else if (!strcmp(mode, "fuzz")) {
    fuzz((struct fuzz *)r->fuzz_area, 3000);
  } else if (!strcmp(mode, "fuzz-region")) {
    AMBER_ATOMIC {
      fuzz((struct fuzz *)r->fuzz_area, 300);
    }
  } else if (!strcmp(mode, "sort-kill")) {
    for (int i = 0; i < 40; i++) r->sorted[i] = (i * 37) % 64 - 40;
    qsort(r->sorted, 40, sizeof r->sorted[0], by_value);
    raise(SIGKILL);
  } else if (!strcmp(mode, "sorted")) {
    int ok = 1;
    for (int i = 1; i < 40; i++) ok &= r->sorted[i - 1] <= r->sorted[i];
    printf("sorted after kill: %d, first %ld, last %ld\n", ok, r->sorted[0], r->sorted[39]);
    return 0;
  } else {
    return 2;
  }
  printf("libc coverage: %d checks, %d failed\n", checks, fails);
  return fails != 0;
}
